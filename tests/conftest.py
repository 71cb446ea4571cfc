import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_collection_finish(session):
    """Freeze the heap the collection built (imported modules, test items) out of the cyclic collector.

    Streamlit's script runner (AppTest included) runs ``gc.collect(2)`` after every script run; in a test
    process that full collection walks every object of every imported library and collected test, and it
    grows with the suite. Frozen objects are skipped; what the tests allocate afterwards is still collected.
    """
    import gc

    gc.collect()
    gc.freeze()


def pytest_configure(config):
    """Every test process keeps the app's database in a temporary folder (``DPX_DATA_DIR``): no test writes into the
    repository's ``.dpx-data`` or a user's data folder, and servers the tests start inherit it; a ``DPX_DATABASE_URL``
    of the environment is ignored (the app tests never touch a real deployment's database).

    Then: scan the installed packages for Streamlit components once per test process, not once per AppTest.

    Every new ``AppTest`` runs streamlit.components.v2's ``scan_component_manifests`` (the metadata of every
    installed distribution parsed again: ≈ 0.65 s of CPU), and the suite creates an AppTest per test and more.
    The installed packages do not change while the tests run, so the scan's result is kept for the process.
    """
    import functools
    import os
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="dpx-test-data-")
    os.environ["DPX_DATA_DIR"] = folder
    os.environ.pop("DPX_DATABASE_URL", None)
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))

    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    manifest_scanner.scan_component_manifests = lambda max_workers=None: list(scan())
