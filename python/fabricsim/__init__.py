"""fabricsim: a discrete-event simulator of Fibre Channel and InfiniBand fabrics.

>>> import fabricsim
>>> r = fabricsim.run(workload__offered_load=0.5)      # built-in default scenario
>>> r.metrics                                           # pandas DataFrame
>>> s = fabricsim.sweep("s.toml", {"workload.offered_load": [0.1, 0.3]}, reps=3, out="s.parquet")
"""

from . import _core
from . import sweep as _sweep_module  # noqa: F401  (imported before the function below takes the name)
from .api import export, routing, run, sweep
from .errors import FabricsimError, InternalError, ModelError, RoutingWarning, ScenarioError, SweepError, WorkerError
from .result import RunResult
from .scenario import Scenario
from .sweep import SweepResult

# The package attribute `sweep` is the function; the module stays reachable as
# sys.modules["fabricsim.sweep"] (it was imported first, so no later import rebinds the name).
__version__: str = _core.__version__

__all__ = [
    "run",
    "sweep",
    "export",
    "routing",
    "Scenario",
    "RunResult",
    "SweepResult",
    "FabricsimError",
    "ScenarioError",
    "ModelError",
    "SweepError",
    "WorkerError",
    "InternalError",
    "RoutingWarning",
    "__version__",
]
