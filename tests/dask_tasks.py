"""Functions the Dask workers of tests/test_distributed.py import by name."""
import os

import pyclmatch


def matching_dying_once(A, device=None, marker=None):
    """``maximum_matching(A).cardinality``, but the first call (the one that creates
    ``marker``) kills its worker process, as a lost node would."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        os._exit(1)
    except FileExistsError:
        pass
    return pyclmatch.maximum_matching(A, device=device).cardinality
