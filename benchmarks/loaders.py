"""Loader figures for hostile and large uploads (issue 18; prints, never a pass/fail test).

Each case runs in a fresh subprocess (so peak RSS is its own) and prints seconds, peak RSS and the
outcome: the two workbook bombs of issue 18 (a 1.5 KB sheet declaring A1:XFD1048576; 20 M shared
strings in 826 KB), a workbook at the cell cap (``MAX_EXCEL_CELLS``, 50 columns, numbers) and a
CSV near the 50 MB upload limit (960 000 rows x 6 numbers). With python-calamine installed
(``--calamine``) the same workbooks are read by it too, for comparison.

Measured on the 2-core machine while ~6 other sessions ran (load average 11–15), see the report of
issue 18: dimension bomb 46 min extrapolated → 0.36 s (refused); shared-strings bomb (20 M)
≈ 11 min extrapolated (1 M strings: 32 s, +77 MB) → 0.01 s (refused); a workbook of 10⁶ cells 55 s
(the cap is now 500 000: 8.7–27 s); 49.4 MB CSV 38–66 s, peak RSS 799 MB–1 GB → 19–50 s, 651 MB
(time dominated by the machine's load: the csv record scan ~20 %, pandas' cell pass ~50 %, the
numeric parse ~30 %). python-calamine 0.9.1 reads a 100 000 x 5 workbook in 1.7 s vs 8.7 s for the openpyxl loader,
but a sheet with one value at XFD20000 makes it allocate 10 GB and abort the whole process (Rust OOM:
the server would die for every user), so the app keeps openpyxl behind the caps.

Run: ``python benchmarks/loaders.py`` (``--quick``: the CSV at 100 000 rows and the workbook at 1/10
of the cap).
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import io, resource, sys, time
sys.path.insert(0, {root!r})
raw = open({path!r}, "rb").read()
engine = {engine!r}
if engine == "calamine":
    import python_calamine as pc
else:
    from dpcore import data as D
t = time.perf_counter()      # imports excluded
try:
    if engine == "calamine":
        rows = pc.CalamineWorkbook.from_filelike(io.BytesIO(raw)).get_sheet_by_index(0).to_python()
        out = f"read {{len(rows):,}} rows"
    else:
        ds = D.load_file(raw, name={name!r})
        out = f"loaded {{ds.n_rows:,}} rows x {{ds.frame.shape[1]}} columns"
except Exception as exc:
    out = f"{{type(exc).__name__}}: {{str(exc)[:110]}}"
dt = time.perf_counter() - t
print(f"{{dt:8.2f}} s  peak RSS {{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:6.0f}} MB  {{out}}")
'''


def _run(label: str, raw: bytes, name: str, engine: str = "dpcore") -> None:
    with tempfile.NamedTemporaryFile(suffix=Path(name).suffix, delete=False) as f:
        f.write(raw)
    code = CHILD.format(root=str(ROOT), path=f.name, engine=engine, name=name)
    try:
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        line = res.stdout.strip() or f"died (exit {res.returncode}): {res.stderr.strip().splitlines()[:1]}"
    except subprocess.TimeoutExpired:
        line = "still running after 600 s (stopped)"
    finally:
        Path(f.name).unlink()
    print(f"{label:<44} {engine:<9} {len(raw) / 2**20:7.2f} MB  {line}", flush=True)


def _cap_workbook(cells: int) -> bytes:
    from dpcore.data.readers import _col_letter
    from tests.data import xlsx_build as X
    m = 50
    n = cells // m
    head = "".join(f'<c r="{_col_letter(j)}1" t="inlineStr"><is><t>c{j}</t></is></c>' for j in range(m))
    body = "".join(f'<row r="{i}">' + "".join(f'<c r="{_col_letter(j)}{i}"><v>{i * 0.5 + j}</v></c>'
                                             for j in range(m)) + "</row>" for i in range(2, n + 2))
    return X.workbook(X.sheet_xml(f'<row r="1">{head}</row>' + body))


def _csv(rows: int) -> bytes:
    import numpy as np
    rng = np.random.default_rng(0)
    buf = "a,b,c,d,e,f\n" + "\n".join(",".join(f"{v:.5f}" for v in r) for r in rng.normal(50, 10, (rows, 6)))
    return (buf + "\n").encode()


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from dpcore import data as D
    from tests.data import xlsx_build as X
    quick = "--quick" in sys.argv
    engines = ["dpcore"] + (["calamine"] if "--calamine" in sys.argv else [])
    cases = [("bomb: dimension A1:XFD1048576", X.bomb_dimension(), "bomb.xlsx"),
             ("bomb: 20 M shared strings", X.bomb_shared_strings(), "bomb.xlsx"),
             (f"workbook at {'1/10 of ' if quick else ''}the cell cap (50 cols)",
              _cap_workbook(D.MAX_EXCEL_CELLS // (10 if quick else 1)), "cap.xlsx")]
    for label, raw, name in cases:
        for engine in engines:
            _run(label, raw, name, engine)
    _run("CSV, 6 numeric columns", _csv(100_000 if quick else 960_000), "big.csv")


if __name__ == "__main__":
    main()
