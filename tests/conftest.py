import os

os.environ.setdefault("HERON_SIM_PROGRESS", "0")
# The compile note goes to stderr whatever it is; the tests that count stderr lines would
# otherwise depend on whether the kernel cache is warm (tests of the note set it to 1).
os.environ.setdefault("HERON_SIM_COMPILE_NOTE", "0")
