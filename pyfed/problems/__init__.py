"""Federated problems: quadratic clients, L2-logistic regression, a smooth nonconvex loss, softmax regression."""

from .base import Problem
from .logistic import FiniteSumProblem, LogisticProblem
from .nonconvex import NonconvexLogisticProblem
from .quadratic import QuadraticProblem, is_psd_exact, random_quadratic
from .softmax import SoftmaxProblem

__all__ = ["Problem", "QuadraticProblem", "is_psd_exact", "random_quadratic",
           "FiniteSumProblem", "LogisticProblem", "NonconvexLogisticProblem", "SoftmaxProblem"]
