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
