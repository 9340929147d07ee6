"""``scripted``: decisions read in order from an integer script (for tests and replays).

Each decision the seat faces consumes the next script value, encoded as the decision's return
value (heron_sim.engine.layout), except D_KEEP: -1 stops, a value >= 0 is a bit mask over die
indices (bit i set: keep die i, which must be free) and rerolls. When the script runs out the
seat plays ``greedy``.
"""

from __future__ import annotations

from ..engine.jit import hot

from ..engine.layout import D_KEEP, DPTR, DSCRIPT, DSCRIPT_LEN, FREE, KEEP, NDICE, STATUS
from .greedy import greedy_decide

NAME = "scripted"
DESCRIPTION = "Decisions from a script (tests); greedy once the script runs out."
SID = 2  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "scripted_decide"  # its decision function, called by the generated dispatcher
ORDER = 5  # where it is listed (help, "all", "ai")
USER_FACING = False


@hot
def scripted_decide(kind, seat, w):
    p = w[DPTR]
    if p >= w[DSCRIPT_LEN]:
        return greedy_decide(kind, seat, w)
    w[DPTR] = p + 1
    value = w[w[DSCRIPT] + p]
    if kind != D_KEEP:
        return value
    for i in range(w[NDICE]):
        w[KEEP + i] = 0
    if value < 0:
        return 0
    for i in range(w[NDICE]):
        if (value >> i) & 1:
            if w[STATUS + i] != FREE:
                raise ValueError("scripted keep names a die that is not free")
            w[KEEP + i] = 1
    return 1
