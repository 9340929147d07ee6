"""Where everything lives in the engine's two flat arrays (plain integer constants).

The kernels share state through two int64 vectors instead of many small arrays, so that a
call between compiled functions passes a few pointers (no tuple of arrays to unpack and
reference-count at every decision):

- ``R`` (rules, read-only): the scalars ``P_*`` of heron_sim.rules.rules at the start, then the
  combination table, the dice faces and the board at the offsets below.
- ``w`` (workspace, one per worker, reset per game): game state by seat, game scalars, turn
  scalars, the dice, scratch, then the game's output row, the single-use marks, the leaders by
  round and the optional scripts, at offsets stored in the game scalars.

Seat fields are read ``w[POS + seat]``; dice fields ``w[FACE + die]``.
"""

from __future__ import annotations

from ..rules.keys import X_KEYS

# Animals (same order as heron_sim.animals).
LOUP, TAUREAU, SERPENT, LION, AIGLE, CERF, HERON = range(7)

MAX_SEATS = 7
MAX_DICE = 16
MAX_FACES = 16

# ---------------------------------------------------------------- rules vector R
# 0 .. R_UNIFORM - 1: scalars P_* (heron_sim.rules.rules; pack_rules checks they fit), then:
R_UNIFORM = 15                # 1 if every die has the same faces (one table for all: fast path)
R_NDICE = 16                  # number of dice
R_ADVANCE = 17                # [MAX_DICE + 1] advance by set size
R_EFFECT = R_ADVANCE + MAX_DICE + 1   # [MAX_DICE + 1] combination effect by set size
R_NFACES = R_EFFECT + MAX_DICE + 1    # [MAX_DICE] faces per die
R_FACES = R_NFACES + MAX_DICE         # [MAX_DICE * MAX_FACES] animal on face k of die i
R_REJECT = R_FACES + MAX_DICE * MAX_FACES  # [MAX_DICE] 65536 mod faces: 16-bit draws below it
                                           # are rejected (so every face is exactly equiprobable)
# The keys the kernels read from the X block: allocated in the order of the table of rules keys
# (heron_sim.rules.keys.X_KEYS; at their defaults every game is the rulings' game). Each key's
# row names its constant below; tests/test_rules_keys.py checks that every one is defined here
# and equals its slot.
R_X = R_REJECT + MAX_DICE
X_SLOT = {k.name: R_X + i for i, k in enumerate(X_KEYS)}  # {key: its slot of R}
X_PUSH_PER = X_SLOT["pond_pushback_per_heron"]      # squares of push-back per Pond heron
X_PUSH_FLAT = X_SLOT["pond_pushback_flat"]          # squares added to every Pond's push-back
X_PUSH_MAX = X_SLOT["pond_pushback_max"]            # cap of the push-back (0: none)
X_CONS_ANX = X_SLOT["consolation_anxiety"]          # squares after an unrescued Anxiety
X_CONS_NOSET = X_SLOT["consolation_no_set"]         # squares after a scored turn worth 0
X_BULL_MIN = X_SLOT["bull_min_set"]                 # smallest set the Taureau's power applies to
X_EAGLE_DRAWS = X_SLOT["eagle_draws"]               # faces the Aigle's power draws
X_PATIENCE_COST = X_SLOT["patience_cost"]           # rolls the Héron's Patience gives up
X_PATIENCE_DOUBLING = X_SLOT["heron_patience_doubling"]  # 1: a Héron guide doubles the animal
                                                         # it set with Patience this turn
X_START = R_X + len(X_KEYS)   # [MAX_SEATS] start_squares by seat
X_EXTRA_ROLLS = X_START + MAX_SEATS  # [MAX_SEATS] first_turn_extra_rolls by seat
# Rules by guide (heron_sim.rules.Rules.guides): R is then 8 rows of rules_length(finish) words,
# the game's rules first, then the rules of the turn of guide g's holder (row g + 1); the turn
# slot reads the row of the guide its player holds at its start (heron_sim.loop.game.play_slot).
R_ROWS = X_EXTRA_ROLLS + MAX_SEATS  # row length if R holds rows by guide (read in row 0), else 0; -1 in a guide's row
R_TSET = R_ROWS + 1   # in each row: which block of the strategies' parameter rows (sp) holds the
                      # tables of its rules (heron_sim.rules.Rules.turn_rows; 0 without rules by guide)
R_BOARD = R_TSET + 1  # [finish] square effect codes


def rules_length(finish: int) -> int:
    return R_BOARD + finish


# ---------------------------------------------------------------- workspace w
# Game state by seat (one block of MAX_SEATS per field).
POS = 0            # square
GUIDE = 7          # guide card held (animal)
READY = 14         # 1 ready, 0 exhausted (travels with the card)
SKIP = 21          # must skip the next turn (Émerveillement)
PROT = 28          # protected (🛡️ or 🌿) until its next turn slot
BONUS = 35         # Wolf square: +1 roll on the next really-played turn
SID = 42           # strategy id by seat
# Game scalars.
PLAYERS = 49
ACTIVE = 50
WINNER = 51
ROUND = 52
NDICE = 53
ROW = 54           # offset of the output row
USED = 55          # offset of the single-use marks [finish]
LEAD = 56          # offset of leaders by round [2, max_rounds + 1]
RSCRIPT = 57       # offset of the dice script
RSCRIPT_LEN = 58
RPTR = 59          # next dice-script position
DSCRIPT = 60       # offset of the decision script
DSCRIPT_LEN = 61
DPTR = 62          # next decision-script position
# Turn scalars.
ROLLS_LEFT = 63    # rolls still allowed this turn
NOMINAL = 64       # the fixed move back a Snake decision is about
SET_SIZE = 65      # size of the turn's largest set
EAGLE_DIE = 66     # die chosen for the Eagle (its drawn faces: EAGLE_FACES)
PMEMO = 67         # offset of prudent's memo of its keep/stop answers (heron_sim.strategies
PMEMO_LEN = 68     # .prudent_turn), and its length in words (0: none, as in a scripted workspace)
ROLL = 69          # number of the current roll (1 = first)
# Scratch.
COUNTS = 70        # [7] dice showing each animal (also the deck when dealing guides)
KEEP = 77          # [MAX_DICE] a strategy's keep answer (1 keep this free die)
# Dice.
FACE = 93          # [MAX_DICE] animal showing
STATUS = 109       # [MAX_DICE] FREE, KEPT or RESERVED (heron)
FRESH = 125        # [MAX_DICE] 1 if the die belongs to the current roll (rolled by it, or
                   # rerolled by the Wolf): kept or reserved fresh dice are "newly kept" (§2.3)
MEMO = 141         # [2] a strategy's note from D_POWER to the D_KEEP that follows it at the same
                   # decision point (expert: a stamp, then the dice's table column)
DECIDE_FN = 143    # address of the C-callable ``decide`` of every strategy (the shared kernel,
                   # heron_sim.loop.kernels); 0 in a kernel that calls its strategies directly
PATIENCE = 144     # animal a Héron guide set with Patience this turn (-1: none; reset by
                   # every roll phase; read by heron_patience_doubling)
MAX_EAGLE_DRAWS = 6
EAGLE_FACES = 145  # [MAX_EAGLE_DRAWS] the faces the Eagle drew (eagle_draws of them)
LUCK_ROW = EAGLE_FACES + MAX_EAGLE_DRAWS  # 0: luck not measured; else 1 + the row of ``sp`` holding
                   # the expert's tables and the luck's block (heron_sim.strategies.expert_luck)
LUCK_OFF = LUCK_ROW + 1  # offset of the luck's block in that row
LUCK = LUCK_OFF + 1  # [MAX_SEATS] each seat's luck this game, in units of 2**-LUCK_SHIFT squares
LUCK_SHIFT = 32
LUCK_WEIGHTS = 20  # weighted lucks a seat (heron_sim.strategies.luck_weights: its basis)
LUCK_SLOT = LUCK + MAX_SEATS  # [MAX_SEATS] each seat's luck at the turn slot's start
POS_SLOT = LUCK_SLOT + MAX_SEATS  # [MAX_SEATS] each seat's square at the turn slot's start
LUCKW = POS_SLOT + MAX_SEATS  # [MAX_SEATS * LUCK_WEIGHTS] each seat's weighted lucks this game
                              # (same units), seat s's at LUCKW + s * LUCK_WEIGHTS
LAND_SLOTS = 16  # the board's first special squares whose landing luck is counted (luck_turn.land_luck)
LUCK_PRE = LUCKW + MAX_SEATS * LUCK_WEIGHTS  # index of the law before a reroll in the luck row (-1: none)
LUCK_POST = LUCK_PRE + 1  # column of the state just rolled in the luck row's tables (-1: none)
LAND = LUCK_POST + 1  # [MAX_SEATS * LAND_SLOTS] each seat's landing luck by special square this game
FINL = LAND + MAX_SEATS * LAND_SLOTS  # [MAX_SEATS] each seat's finish luck this game (luck_turn.land_luck: the
                                     # chance the turn reaches the finish, after - before; issue 59 item 1)
LUCK_COLUMNS = MAX_SEATS * (2 + LUCK_WEIGHTS + LAND_SLOTS)  # the output columns luck adds (loops.play_batch)
HEADER = FINL + MAX_SEATS  # the variable regions start here

FREE, KEPT, RESERVED = range(3)

# Decision kinds (what a strategy is asked). Return values:
D_POWER = 0         # roll-time power (Wolf, Eagle, Deer, Heron): -1 none, else die + 32 * arg
D_EAGLE_PICK = 1    # Eagle's face: 0 keep the original, k the k-th drawn face (1..eagle_draws)
D_KEEP = 2          # set w[KEEP + i] = 1 for free dice to keep; return 1 reroll, 0 stop
D_LION = 3          # 1 rescue this Anxiety with the Lion, 0 not
D_BULL = 4          # 1 use the Bull (+2), 0 not
D_SNAKE = 5         # 1 cancel the move back w[NOMINAL] with the Snake (advance 1), 0 not
D_SET_SWAP = 6      # 7-set: -1 no swap, else the opponent's seat to swap guides with
D_SET_CHOICE = 7    # 8+ set: -1 regenerate own guide, else the opponent's seat to swap with
D_EXCHANGE = 8      # square 🔄: -1 take +1 for yourself, else the opponent's seat that moves back 1
D_EAGLE_SQUARE = 9  # Aigle square: -1 no swap, else the opponent's seat to swap positions with
D_DEER_SQUARE = 10  # Cerf square with an exhausted guide: 1 regenerate, 0 advance 2
N_DECISIONS = 11
POWER_ARG = 32      # D_POWER action = die + POWER_ARG * arg (Deer: target animal; Heron: face index)

# Turn outcomes (roll phase).
OUT_SCORED, OUT_POND, OUT_ANXIETY, OUT_RESCUED = range(4)

# A strategy's fused turn (its module's ``FUSED_TURN``, heron_sim.strategies.declared) returns
# ``outcome + 4 * value`` (>= 0) when it played the roll phase to its end, or hands the turn
# back to the generic loop (heron_sim.loop.turn.roll_phase) with one of these codes:
TURN_LAID_OUT = -1      # the dice laid out at a decision point: the loop goes on from there
TURN_KEEP_NEXT = -2     # ... its ready roll-time power declined there: the keep decision next
TURN_USED = -3          # ``TURN_USED - action``: ... it uses its power (D_POWER action) there
TURN_FROM_START = -(1 << 40)  # nothing drawn (the stream rewound): the loop plays the whole turn
TURN_NONE = -(1 << 41)  # the seat's strategy has no fused turn: the loop plays the whole turn
# A strategy's fused score (``FUSED_SCORE``) returns the turn's advance, or one of these codes:
SCORE_GENERIC = -(1 << 40)          # the loop scores the dice (heron_sim.loop.turn.score_dice)
SCORE_GENERIC_COUNTED = -(1 << 41)  # ... from the counts the fused turn left in w[COUNTS]

# Output row of one game (offsets inside the row).
C_WINNER, C_ROUNDS, C_FINISHED, C_PONDS, C_ANXIETIES, C_LION_RESCUES, C_PLAYED, C_SKIPPED, \
    C_PUSHBACK, C_LEAD_CHANGES, C_MID_LEADER, C_MID_LAST, C_POND_LEAD_LOSSES = range(13)
# C_POND_LEAD_LOSSES: Ponds after which the seat strictly ahead before the Pond no longer is.
C_POS = 13                              # [7] final position by seat (-1: no seat)
C_GUIDE = C_POS + MAX_SEATS             # [7] guide dealt at the start, by seat (-1: no seat)
C_ADVANCE = C_GUIDE + MAX_SEATS         # [7] advance from own combinations (+ Bull), by seat
C_TURNS = C_ADVANCE + MAX_SEATS         # [7] really-played turns, by seat
C_SEAT_ANX = C_TURNS + MAX_SEATS        # [7] Anxieties, by seat
C_SEAT_DOUBLED = C_SEAT_ANX + MAX_SEATS  # [7] advance gained by Guide Power doubling, by seat
C_SEAT_PONDS = C_SEAT_DOUBLED + MAX_SEATS  # [7] Peaceful Ponds rolled, by seat (the roller)
C_SEAT_POND_HITS = C_SEAT_PONDS + MAX_SEATS  # [7] times an unprotected seat was targeted by a Pond
                                             # (a Snake cancel counts: the seat was hit)
C_SEAT_POND_BACK = C_SEAT_POND_HITS + MAX_SEATS  # [7] squares lost to Ponds, by seat (after the
                                                 # floor at square 0; a Snake cancel loses none)
C_POWERS = C_SEAT_POND_BACK + MAX_SEATS  # [7] one-shot powers used, by guide animal
C_COMBOS = C_POWERS + 7                 # [17] scored turns by largest-set size 0..16
C_SQUARES = C_COMBOS + MAX_DICE + 1     # [finish] special squares triggered, by square


def n_columns(finish: int) -> int:
    return C_SQUARES + finish


def workspace_length(finish: int, max_rounds: int, script_len: int = 0) -> int:
    return HEADER + n_columns(finish) + finish + 2 * (max_rounds + 1) + script_len
