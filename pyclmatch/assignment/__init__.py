"""Exact weighted bipartite matching: the assignment problem solved by Bertsekas' auction
with epsilon-scaling on the device and an exact finishing step, certified by linear
programming duality (:func:`assignment`); scipy's assignment solvers with the same
signatures (:func:`min_weight_full_bipartite_matching`, :func:`linear_sum_assignment`); the
maximum-product transversal with MC64-style scaling (:func:`maximum_product_transversal`).

The package is callable: ``pyclmatch.assignment(A, ...)`` is :func:`assignment` (the
package and the function share the name; either import order gives the callable package).

Examples
--------
>>> import numpy as np
>>> from pyclmatch.assignment import linear_sum_assignment
>>> linear_sum_assignment(np.array([[3.0, 1.0], [1.0, 3.0]]))
(array([0, 1]), array([1, 0]))
"""
import sys
import types

from .api import (assignment, AssignmentResult, min_weight_full_bipartite_matching,
                  linear_sum_assignment, InputTypeError)
from .transversal import maximum_product_transversal, TransversalResult

__all__ = ["assignment", "AssignmentResult", "min_weight_full_bipartite_matching",
           "linear_sum_assignment", "InputTypeError", "maximum_product_transversal",
           "TransversalResult"]


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`assignment`."""

    def __call__(self, *args, **kwargs):
        return assignment(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
