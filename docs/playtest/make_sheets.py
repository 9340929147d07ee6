"""Writes docs/playtest/tally.fr.html and tally.en.html (the printable protocol and tally sheet):
``.venv/bin/python docs/playtest/make_sheets.py`` from the repository root."""
import html
T = {
 "fr": dict(title="Feuille de relevé — Héron", lang="fr", h1="Kit de test : protocole", other="tally.fr.md",
   proto=[
    "<b>Avant la partie.</b> Une feuille par partie. Notez le numéro de la partie, la date, le mode (8d8 ou 10d6), les règles jouées, et le prénom de chaque joueur en haut d'une colonne, dans l'ordre du jeu. Le joueur <b>à gauche</b> de celui qui joue tient le chronomètre (un téléphone) et la feuille.",
    "<b>À chaque tour</b>, sur la ligne du tour de table, dans la colonne du joueur :",
    "<ul><li><b>R</b> : le nombre de <b>relances</b> (0, 1, 2 ; 3 avec le bonus de la case Loup) ; la première main ne compte pas ;</li><li><b>I</b> : l'<b>issue</b> : <b>S</b> il s'arrête (de lui-même ou faute de lancer), <b>A</b> Angoisse du Héron (même sauvée par le Lion), <b>É</b> Étang Paisible ;</li><li><b>P</b> : une croix si le <b>pouvoir</b> du guide a servi pendant le tour (Loup, Aigle, Cerf, Patience du Héron, sauvetage du Lion, Taureau) ;</li><li><b>s</b> : les <b>secondes</b> du tour, de la prise des dés à leur passage au voisin (pion déplacé, case appliquée). Non chronométré : vide.</li></ul>",
    "Une case oubliée reste vide : ne devinez pas.",
    "<b>Après la partie</b>, recopiez la feuille dans un tableur, une ligne par tour, enregistrée en « CSV UTF-8 » :",
    "<pre>game,round,player,rerolls,outcome,power,seconds\n1,1,Ana,1,stop,0,35\n1,1,Ben,2,angoisse,1,52\n1,1,Chloé,0,etang,,18</pre>",
    "<code>outcome</code> : stop, angoisse, etang (ou S, A, É) ; <code>power</code> : 1 ou 0 ; <code>seconds</code> vide si non chronométré ; colonne facultative <code>guide</code> (loup, taureau…). Puis :",
    "<pre>heron-sim calibrate partie-1.csv partie-2.csv …</pre>",
    "<b>Ce qu'on en tire.</b> Le temps d'un tour (qui remplace les 40 s supposées derrière le verdict de durée) dès 2 parties chronométrées ; le goût du risque de vos joueurs et l'échelon qu'ils rappellent (« vos joueurs jouent comme l'échelon occasionnel ») en 8 à 10 parties à 4 joueurs. Le bruit des choix, les pouvoirs oubliés et les dés gardés demandent le journal complet (docs/calibrate.md). <code>calibrate</code> dit combien de parties il faut encore.",
   ],
   sheet="Feuille de relevé — une partie", game="Partie n°", date="Date", mode="Mode / règles", timer="Chronomètre : le joueur à gauche",
   player="Joueur", rnd="Tour", cols=("R", "I", "P", "s"),
   legend="R relances (0 1 2) · I issue : S stop, A Angoisse, É Étang · P pouvoir utilisé (✕) · s secondes du tour"),
 "en": dict(title="Tally sheet — Héron", lang="en", h1="Playtest kit: protocol", other="tally.en.md",
   proto=[
    "<b>Before the game.</b> One sheet a game. Write the game's number, the date, the mode (8d8 or 10d6), the rules played, and each player's name at the top of a column, in playing order. The player <b>on the left</b> of the one playing holds the timer (a phone) and the sheet.",
    "<b>At every turn</b>, on the round's line, in the player's column:",
    "<ul><li><b>R</b>: the number of <b>rerolls</b> (0, 1, 2; 3 with the Wolf square's bonus); the first roll does not count;</li><li><b>O</b>: the <b>outcome</b>: <b>S</b> the player stops (by choice or out of rolls), <b>A</b> the Heron's Anxiety (Angoisse, even when the Lion rescued it), <b>E</b> the Peaceful Pond (Étang);</li><li><b>P</b>: a cross if the guide's <b>power</b> was used in the turn (Wolf, Eagle, Deer, the Heron's Patience, the Lion's rescue, the Bull);</li><li><b>s</b>: the turn's <b>seconds</b>, from taking the dice to passing them on (pawn moved, square applied). Not timed: blank.</li></ul>",
    "A box forgotten stays blank: do not guess.",
    "<b>After the game</b>, copy the sheet into a spreadsheet, one row a turn, saved as \"CSV UTF-8\":",
    "<pre>game,round,player,rerolls,outcome,power,seconds\n1,1,Ana,1,stop,0,35\n1,1,Ben,2,angoisse,1,52\n1,1,Chloé,0,etang,,18</pre>",
    "<code>outcome</code>: stop, angoisse, etang (or S, A, E); <code>power</code>: 1 or 0; <code>seconds</code> blank when not timed; optional column <code>guide</code> (loup, taureau…). Then:",
    "<pre>heron-sim calibrate game-1.csv game-2.csv … --lang en</pre>",
    "<b>What it gives.</b> The time a turn takes (which replaces the 40 s assumed behind the length verdict) from 2 timed games; your players' risk appetite and the rung they resemble (\"your players play like the casual rung\") from 8 to 10 four-player games. The noise of the choices, the powers forgotten and the dice kept need the full decision log (docs/calibrate.md). <code>calibrate</code> says how many more games it needs.",
   ],
   sheet="Tally sheet — one game", game="Game no.", date="Date", mode="Mode / rules", timer="Timer: the player on the left",
   player="Player", rnd="Round", cols=("R", "O", "P", "s"),
   legend="R rerolls (0 1 2) · O outcome: S stop, A Anxiety (Angoisse), E Pond (Étang) · P power used (✕) · s the turn's seconds"),
}
CSS = """
@page { size: A4 portrait; margin: 9mm; }
body { font-family: system-ui, "Segoe UI", Arial, sans-serif; font-size: 10.5pt; color: #000; max-width: 190mm; margin: 0 auto; }
h1 { font-size: 15pt; margin: 0 0 4mm; } h2 { font-size: 13pt; margin: 0 0 2mm; }
pre { background: #f3f3f3; padding: 2mm; font-size: 9pt; white-space: pre-wrap; }
.page { page-break-after: always; break-after: page; }
.fields { display: flex; gap: 6mm; font-size: 9.5pt; margin-bottom: 2mm; }
.fields span { flex: 1; border-bottom: 1px solid #000; padding-bottom: 1mm; }
table.sheet { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.sheet th, table.sheet td { border: 1px solid #000; height: 6.3mm; padding: 0; text-align: center; font-size: 8pt; }
table.sheet th.name { height: 7mm; text-align: left; padding-left: 1mm; font-weight: normal; color: #555; }
table.sheet td.rnd, table.sheet th.rnd { width: 8mm; font-weight: bold; background: #eee; }
table.sheet .sep { border-left: 2.5px solid #000; }
table.sheet td.s { width: 10mm; }
.legend { font-size: 8.5pt; margin-top: 1.5mm; }
.noprint { color: #555; font-size: 9pt; }
@media print { .noprint { display: none; } }
"""
PLAYERS, ROUNDS = 5, 36
for lang, t in T.items():
    rows = []
    head1 = f'<tr><th class="rnd" rowspan="2">{t["rnd"]}</th>' + "".join(
        f'<th class="name sep" colspan="4">{t["player"]} {p + 1} :</th>' if lang == "fr" else
        f'<th class="name sep" colspan="4">{t["player"]} {p + 1}:</th>' for p in range(PLAYERS)) + "</tr>"
    head2 = "<tr>" + "".join("".join(f'<th class="{"sep" if i == 0 else ""}{" s" if c == "s" else ""}">{c}</th>'
                                       for i, c in enumerate(t["cols"])) for _ in range(PLAYERS)) + "</tr>"
    for r in range(1, ROUNDS + 1):
        rows.append(f'<tr><td class="rnd">{r}</td>' + "".join(
            '<td class="sep"></td><td></td><td></td><td class="s"></td>' for _ in range(PLAYERS)) + "</tr>")
    other_lang = "en" if lang == "fr" else "fr"
    doc = f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(t['title'])}</title>
<style>{CSS}</style></head><body>
<p class="noprint">{'Imprimer : page 1 le protocole, page 2 la feuille (une par partie ; plus de 36 tours de table : une seconde feuille).' if lang == 'fr' else 'Print: page 1 the protocol, page 2 the sheet (one a game; more than 36 rounds: a second sheet).'} <a href="tally.{other_lang}.html">{'English' if lang == 'fr' else 'Français'}</a> · <a href="{t['other']}">Markdown</a></p>
<div class="page"><h1>{t['h1']}</h1>
{''.join(p if p.startswith(('<ul', '<pre')) else f'<p>{p}</p>' for p in t['proto'])}
</div>
<div><h2>{t['sheet']}</h2>
<div class="fields"><span>{t['game']}</span><span>{t['date']}</span><span>{t['mode']}</span><span>{t['timer']}</span></div>
<table class="sheet">{head1}{head2}{''.join(rows)}</table>
<p class="legend">{t['legend']}</p></div>
</body></html>
"""
    open(f"docs/playtest/tally.{lang}.html", "w", encoding="utf-8").write(doc)
print("ok")
