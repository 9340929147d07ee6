"""The game loop, above the strategies: one turn (turn), the board (moves, squares), the powers,
one game (game), the batch kernels (loops) compiled per strategy set (kernels), and the Python
calls that run them (batch, scripted). It asks a seat's strategy through the dispatcher generated
from the strategies' declarations (heron_sim.strategies.dispatch) and names none of them."""
