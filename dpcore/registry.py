"""Topics declare themselves; nothing central lists them.

A topic is a subpackage ``dpcore/<topic>/`` with a module ``declare.py`` that defines ``TOPIC``, a
:class:`Topic`: its mechanisms (:class:`~dpcore.mechanism.MechanismSpec`), its audits
(:class:`~dpcore.audit.Audit`) and its experiments (``dpcore.experiments.Experiment``, the figures of
``python -m dpcore reproduce``). :func:`topics` finds every such module by scanning the package,
so adding a topic means adding its folder — no central file is edited. The contract test, the audit
page and the CLI all read from here.

The registry is computed once per process and is read-only (tuples and mapping proxies): no user
session can add or change an entry.
"""
from __future__ import annotations

import functools
import importlib.util
import pkgutil
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

__all__ = ["Style", "Topic", "topics", "styles", "mechanisms", "audits", "experiments", "mechanism", "DECLARE_MODULE",
           "unhardened", "EVERY_MECHANISM_UNHARDENED"]

#: Name of the module a topic package declares itself in.
DECLARE_MODULE = "declare"


@dataclass(frozen=True)
class Style:
    """How a method of a topic is drawn: its plain-words label and its colour.

    ``colour`` names a colour of :data:`dpcore.viz.style.COLOUR_NAMES` (the Okabe–Ito palette, plus two
    greys), never a hex code: the palette is defined once.
    """

    label: str
    colour: str


@dataclass(frozen=True)
class Topic:
    """One topic's declaration.

    Attributes
    ----------
    name : str
        The package name (``"kng"``, ``"lasso"``, ...), also the prefix of its registry names.
    title : str
        Plain-words title.
    reference : str
        The paper(s), as cited on the topic's page.
    mechanisms, audits, experiments : tuples
        The topic's declarations (see module docstring).
    paper : str
        The full citation shown on the home page (empty for a topic without a paper).
    url : str
        A link to the paper.
    preview : callable or None
        ``preview(name, spec, config, *, n, d, reps, rng, label, **shape) -> dpcore.preview.ErrorLaw``: the law
        of the error one draw of the topic's mechanism ``name`` adds, from public inputs only (the accuracy shown
        before a release; :func:`dpcore.preview.preview` dispatches here). None: no preview.
    audit_seconds : Mapping[str, float]
        Measured seconds per sample per dataset of each of the topic's audits (the audit page's time model,
        :mod:`dpcore.audit.cost`).
    styles : Mapping[str, Style]
        Label and colour of each method name used in the topic's frames and figures (read by
        :mod:`dpcore.viz.style`; names are looked up within the topic first, so two topics may both
        have a ``"laplace"``).
    """

    name: str
    title: str
    reference: str
    mechanisms: tuple = ()
    audits: tuple = ()
    experiments: tuple = ()
    paper: str = ""
    url: str = ""
    styles: Mapping[str, Style] = field(default_factory=lambda: MappingProxyType({}))
    preview: Any = None
    audit_seconds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        for kind in ("mechanisms", "audits", "experiments"):
            object.__setattr__(self, kind, tuple(getattr(self, kind)))
        object.__setattr__(self, "styles", MappingProxyType(dict(self.styles)))
        object.__setattr__(self, "audit_seconds", MappingProxyType(dict(self.audit_seconds)))
        for key, st in self.styles.items():
            if not isinstance(st, Style):
                raise TypeError(f"style {key!r} of topic {self.name!r} must be a registry.Style.")
        for m in self.mechanisms:
            if m.topic != self.name:
                raise ValueError(f"mechanism {m.name!r} of topic {self.name!r} must be named '{self.name}/...'.")
        for a in self.audits:
            if a.topic != self.name:
                raise ValueError(f"audit {a.id!r} of topic {self.name!r} must be named '{self.name}/...'.")


@functools.cache
def topics() -> tuple[Topic, ...]:
    """Every declared topic, in package-name order (imports each ``dpcore/<topic>/declare.py``)."""
    import dpcore

    found = []
    for info in sorted(pkgutil.iter_modules(dpcore.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        spec = importlib.util.find_spec(f"dpcore.{info.name}.{DECLARE_MODULE}")
        if spec is None:
            continue
        module = importlib.import_module(f"dpcore.{info.name}.{DECLARE_MODULE}")
        topic = getattr(module, "TOPIC", None)
        if not isinstance(topic, Topic):
            raise TypeError(f"dpcore/{info.name}/{DECLARE_MODULE}.py must define TOPIC = Topic(...).")
        if topic.name != info.name:
            raise ValueError(f"dpcore/{info.name}/{DECLARE_MODULE}.py declares TOPIC.name = {topic.name!r}; "
                             f"it must be {info.name!r}.")
        found.append(topic)
    return tuple(found)


def _unique(items: Any, key: str, what: str) -> Mapping[str, Any]:
    out: dict[str, Any] = {}
    for it in items:
        k = getattr(it, key)
        if k in out:
            raise ValueError(f"two {what} are named {k!r}.")
        out[k] = it
    return MappingProxyType(out)


@functools.cache
def mechanisms() -> Mapping[str, Any]:
    """Read-only mapping name → MechanismSpec over every topic."""
    return _unique((m for t in topics() for m in t.mechanisms), "name", "mechanisms")


@functools.cache
def audits() -> Mapping[str, Any]:
    """Read-only mapping id → Audit over every topic."""
    return _unique((a for t in topics() for a in t.audits), "id", "audits")


@functools.cache
def experiments() -> Mapping[str, Any]:
    """Read-only mapping id → Experiment over every topic."""
    return _unique((e for t in topics() for e in t.experiments), "id", "experiments")


@functools.cache
def styles() -> Mapping[str, Mapping[str, Style]]:
    """Read-only mapping topic name → its method styles (see :attr:`Topic.styles`)."""
    return MappingProxyType({t.name: t.styles for t in topics()})


def mechanism(name: str) -> Any:
    """The MechanismSpec called ``name`` (a DPValueError listing the names if there is none)."""
    from .errors import DPValueError

    table = mechanisms()
    if name not in table:
        raise DPValueError(f"mechanism {name!r} is unknown; registered: {', '.join(table)}.")
    return table[name]


#: What no sampler closes, for every mechanism alike (said once instead of per mechanism).
EVERY_MECHANISM_UNHARDENED = (
    "timing: running times depend on the data and on the draws (the sparse histogram's O(q + F), rejection loops "
    "of the exact and float samplers, MCMC lengths, solver iterations) and are not padded or hidden",
    "the user's statistic itself is computed in floating point before any noise (sums, fits); the hardened "
    "releases round it to a public grid or release integer counts, the others release it plus float noise",
)


def unhardened() -> tuple[tuple[str, str, str], ...]:
    """(mechanism, step, kind) of every declared random step that is NOT an exact integer sampler: floating-point
    samplers of continuous laws ("float") and Markov chains ("mcmc", approximately private by construction).

    Read from each :class:`~dpcore.mechanism.MechanismSpec`'s ``noise`` declaration; steps of kind
    "exact-discrete" (integers by :mod:`dpcore.exact`) and "grid-discrete" (a statistic rounded to a public grid
    plus exact discrete noise) are hardened against Mironov's (2012) floating-point attack and are not listed.
    :data:`EVERY_MECHANISM_UNHARDENED` holds what applies to all mechanisms (timing).
    """
    return tuple((name, step.what, step.kind) for name, spec in mechanisms().items() for step in spec.noise
                 if step.kind in ("float", "mcmc"))
