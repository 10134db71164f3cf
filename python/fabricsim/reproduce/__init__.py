"""Reproductions of published experiments (``fabricsim reproduce``).

Each study lives in its own module, whose ``@experiment`` functions register
themselves when it is imported; list every study module here.
"""

from __future__ import annotations

import importlib

from .claims import Compare, Series, Value
from .framework import (
    Context,
    Experiment,
    ExperimentOutput,
    Panel,
    PlotSpec,
    Report,
    experiment,
    experiments,
    run_experiment,
)
from .pipeline import format_checks, reproduce
from .policy import Check, check

# Study modules, one per published study; an experiment module that is listed
# here but missing is an error, never silently skipped.
STUDY_MODULES: tuple[str, ...] = (
    "hp_fc_1995",
    "hp_fc_1995_fabrics",
    "fc_classes",
    "fcal_loop",
    "iba_2007",
    "iba_2007_family",
    "iba_2007_ablation",
    "iba_2007_slack",
    "switched_fcal",
    "switched_fcal_disks",
    "ong_farrell_fc",
    "ib_cc_2010",
    "ib_cc_2010_victim",
    "ib_cc_2010_cluster",
    "ib_cc_2011",
)

for _name in STUDY_MODULES:
    importlib.import_module(f"{__name__}.{_name}")

__all__ = [
    "Check",
    "Compare",
    "Series",
    "Value",
    "Context",
    "Experiment",
    "ExperimentOutput",
    "Panel",
    "PlotSpec",
    "Report",
    "check",
    "experiment",
    "experiments",
    "format_checks",
    "reproduce",
    "run_experiment",
    "STUDY_MODULES",
]
