"""An exported script runs from any folder once the app is installed as the README says (issue 32, item 4).

Before: `pip install -r requirements.txt` installed only the dependencies, so `python ../exports/script.py` failed
with ``ModuleNotFoundError: No module named 'dpcore'`` (Python puts the script's folder, not the app's, on
``sys.path``). After: requirements.txt installs the package itself (``-e .``), and every exported script and notebook
says in its first lines how to run it.
"""
from __future__ import annotations

import json
import os
import site
import subprocess
import venv
from pathlib import Path

from dpcore import export as X
from dpcore import query_release
from tests.export.helpers import ROOT


def _query_release_script() -> X.Script:
    cfg = query_release.LabConfig(query_release.Thresholds(16), dataset=query_release.DATASETS[0], rho=0.5,
                                  epsilon=1.0, alpha=0.2, methods=("gaussian",), ns=(100,), reps=2, alphas=(0.2,))
    return X.lab_script(query_release.run_lab, cfg, 0)


def test_issue32_4_requirements_install_the_package_itself():
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()]
    assert "-e ." in lines, "requirements.txt must install the project (a line `-e .`): exports import dpcore"


def test_issue32_4_script_and_notebook_say_how_to_run_them_first():
    script = _query_release_script()
    head = " ".join(" ".join(script.to_python().splitlines()[:8]).split())
    assert "How to run" in head and "pip install -r requirements.txt" in head and "python this_file.py" in head
    cells = json.loads(script.to_notebook())["cells"]
    assert "How to run" in "".join(cells[0]["source"]) and "pip install -r requirements.txt" in "".join(cells[0]["source"])


def test_issue32_4_exported_script_runs_from_another_folder(tmp_path):
    """The README's install (`pip install -r requirements.txt`, in the app's folder) into a fresh environment whose
    third-party packages are this one's (no download: --no-index, --no-build-isolation), then the exported script
    saved in a folder outside the app and run from a third folder, with PYTHONPATH unset."""
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    inner_site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                capture_output=True, text=True, check=True).stdout.strip()
    # the dependencies (and pip, setuptools) of the running environment, as a path only: its own .pth files, among
    # them an editable install of dpcore, are not read, so dpcore is importable only if the install below provides it
    Path(inner_site, "outer.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    probe = subprocess.run([str(py), "-c", "import dpcore"], cwd=tmp_path, env=clean, capture_output=True, text=True)
    assert probe.returncode != 0, "dpcore is importable before the install: the test would prove nothing"
    done = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation",
                           "-r", "requirements.txt"], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]

    exports, elsewhere = tmp_path / "exports", tmp_path / "app"
    exports.mkdir()
    elsewhere.mkdir()
    (exports / "script.py").write_text(_query_release_script().to_python(), encoding="utf-8")
    ran = subprocess.run([str(py), "../exports/script.py"], cwd=elsewhere, env=clean, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "ModuleNotFoundError" not in ran.stderr and "streamlit" not in ran.stderr
    where = subprocess.run([str(py), "-c", "import dpcore; print(dpcore.__file__)"], cwd=elsewhere, env=clean,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert Path(where).resolve().is_relative_to(ROOT.resolve()), f"dpcore imported from {where}, not this checkout"
