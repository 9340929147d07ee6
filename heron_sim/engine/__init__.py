"""The compiled engine: random streams, dice, one turn, the board, one game, batches."""
