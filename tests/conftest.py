import os

os.environ.setdefault("HERON_SIM_PROGRESS", "0")
