"""The compiled engine's core, below the strategies: the workspace and rules-vector layout,
random streams, dice, the rules' own functions (rulebook) and the rules' packing. The strategies
(heron_sim.strategies) build on it; the game loop (heron_sim.loop) sits above both."""
