"""The shared vocabulary of every mechanism of every topic (the template a topic copies).

A mechanism is four things (see ``docs/architecture.md``):

1. a **frozen config** dataclass that validates itself in ``__post_init__`` (an unknown or
   irrelevant parameter is an error naming it, never silently kept; build one from keyword
   arguments with :func:`make_config`);
2. a **pure release function** ``release(data, config, *, rng) -> Release``;
3. a :class:`Calibration` — sensitivity, density constant or noise scale, the derivation, the
   paper reference and equation, and the per-draw privacy cost (``cost(size)``);
4. a declaration, :class:`MechanismSpec`, listed in the topic's ``declare.py`` (see
   :mod:`dpcore.registry`), with a small example for the contract test and the audits (declared
   as data in :mod:`dpcore.audit`).

The non-private estimate is a separate function returning a plain value, never a
:class:`Release`. What a release publishes (:attr:`Release.value`, its cost, the public
calibration) is kept apart from its non-private by-products (:class:`Diagnostics`: MCMC
diagnostics, clipping counts, the non-private estimate), which pages show only as labelled
non-private diagnostics.

>>> cal = Calibration(mechanism="demo/laplace", notion="pure", epsilon=1.0, sensitivity=2.0,
...                   constant=2.0, constant_name="Laplace scale b = Δ/ε",
...                   derivation="|f(D) − f(D′)| ≤ 2 under replace-one", reference="Dwork et al. (2006)")
>>> cal.cost(3).total_epsilon
3.0
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, cast, Mapping, Optional

import numpy as np

from .errors import DPValueError
from .exact import NoiseStep
from .privacy import NOTIONS, PrivacyCost

__all__ = ["Calibration", "Note", "Diagnostics", "Release", "MechanismSpec", "NoiseStep", "make_config", "frozen_mapping",
           "NOTE_KINDS", "data_shape", "lazy", "LazyValues"]

#: Kinds of structured notes a release carries (pages choose the widget from the kind).
#: ``"output"`` notes restate noised statistics released with the value (e.g. the private bounds λ̂, Λ̂ of
#: propose-test-release): they are part of the private output, never a function of the data alone.
NOTE_KINDS = ("info", "warning", "approximate", "withheld", "output")


def frozen_mapping(m: Optional[Mapping[str, Any]] = None) -> Mapping[str, Any]:
    """A read-only copy of ``m`` (for mapping fields of frozen dataclasses)."""
    return MappingProxyType(dict(m or {}))


class lazy:
    """A :class:`Diagnostics` entry computed on first read: a release computes only what it releases, and a
    non-private by-product (the non-private estimate, a clipping count) costs nothing until a page shows it.

    >>> d = Diagnostics(values={"n": 3, "twice": lazy(lambda: 2 * 3)})
    >>> d.values["twice"], dict(d.values)
    (6, {'n': 3, 'twice': 6})
    """

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn


class LazyValues(Mapping[str, Any]):
    """Read-only mapping whose :class:`lazy` entries are computed once, on first read (pickles evaluated)."""

    __slots__ = ("_m",)

    def __init__(self, m: Mapping[str, Any]) -> None:
        self._m = dict(m)

    def __getitem__(self, key: str) -> Any:
        v = self._m[key]
        if isinstance(v, lazy):
            v = self._m[key] = v.fn()
        return v

    def __iter__(self):
        return iter(self._m)

    def __len__(self) -> int:
        return len(self._m)

    def __reduce__(self):
        return (LazyValues, (dict(self.items()),))

    def __repr__(self) -> str:
        return f"LazyValues({dict(self.items())!r})"


@dataclass(frozen=True)
class Calibration:
    """The public constants of one mechanism for one (public) setting, and its privacy cost per draw.

    Attributes
    ----------
    mechanism : str
        Registry name, ``"topic/mechanism"`` (e.g. ``"kng/median-kng"``).
    notion : {"pure", "approx", "zcdp", "ldp"}
        The guarantee of ONE draw: ε-DP, (ε, δ)-DP, ρ-zCDP or ε-LDP.
    epsilon, delta, rho : float
        The numbers of one draw that apply to ``notion``.
    sensitivity : float
        Δ of the released statistic (or of the score/gradient), in the norm the derivation names.
    constant : float
        The density constant or noise scale actually used (``constant_name`` says which).
    constant_name : str
        E.g. ``"c in log f(θ) = −c‖∇ℓ(θ)‖_K"`` or ``"Laplace scale b = Δ/ε"``.
    derivation : str
        The sensitivity derivation in words and formulas (shown on the page).
    reference : str
        Paper, section and equation (e.g. ``"Reimherr & Awan (2019), Thm 3.1"``).
    neighbours : str
        The neighbouring relation (``"replace-one"`` unless said).
    params : Mapping
        Further public constants (e.g. objective perturbation's γ, a norm, a threshold τ) —
        a mutant in an audit overrides these or the fields above, never module state.
    note : str
        A qualification of the guarantee (e.g. "ε-DP for the exact target; MCMC draw approximate").
    """

    mechanism: str
    notion: str
    sensitivity: float
    constant: float
    constant_name: str
    derivation: str
    reference: str
    epsilon: Optional[float] = None
    delta: float = 0.0
    rho: Optional[float] = None
    neighbours: str = "replace-one"
    params: Mapping[str, Any] = field(default_factory=frozen_mapping)
    note: str = ""

    def __post_init__(self) -> None:
        if self.notion not in NOTIONS:
            raise DPValueError(f"notion = {self.notion!r} is unknown; use one of {NOTIONS}.")
        if not isinstance(self.params, MappingProxyType):
            object.__setattr__(self, "params", frozen_mapping(self.params))
        self.cost(1)  # validates ε / δ / ρ for the notion

    def cost(self, size: int = 1) -> PrivacyCost:
        """The :class:`~dpcore.privacy.PrivacyCost` of ``size`` independent draws (per-draw cost × count)."""
        if self.notion == "zcdp":
            return PrivacyCost.zcdp(cast(float, self.rho), neighbours=self.neighbours, note=self.note, count=size)
        if self.notion == "ldp":
            return PrivacyCost.ldp(cast(float, self.epsilon), note=self.note, count=size)
        return PrivacyCost(self.notion, epsilon=self.epsilon, delta=self.delta, neighbours=self.neighbours,
                           note=self.note, count=size)

    def replace(self, **changes: Any) -> "Calibration":
        """A copy with some fields changed (audits build their mutants this way)."""
        if "params" in changes:
            merged = dict(self.params)
            merged.update(changes["params"])
            changes["params"] = frozen_mapping(merged)
        return dataclasses.replace(self, **changes)

    def statement(self) -> str:
        """The privacy statement shown beside a release: guarantee, neighbours, sensitivity, reference."""
        cost = self.cost(1).describe()
        return (f"{cost}. Sensitivity Δ = {self.sensitivity:.6g}: {self.derivation} "
                f"{self.constant_name} = {self.constant:.6g}. Reference: {self.reference}.")


@dataclass(frozen=True)
class Note:
    """A structured remark on a release. ``kind`` is one of :data:`NOTE_KINDS`."""

    kind: str
    text: str

    def __post_init__(self) -> None:
        if self.kind not in NOTE_KINDS:
            raise DPValueError(f"note kind {self.kind!r} is unknown; use one of {NOTE_KINDS}.")


@dataclass(frozen=True)
class Diagnostics:
    """NON-PRIVATE by-products of a release, computed from the data: never part of what is released.

    Pages show them apart from the release, labelled as not private (on a user's data, only in the
    teaching view).

    Attributes
    ----------
    mcmc : object or None
        MCMC diagnostics (acceptance, split R-hat, ESS) when the release was sampled by MCMC.
    values : Mapping
        Other non-private numbers keyed by a plain-words name (``"clipped records"``,
        ``"non-private estimate"``, ...); an entry given as :class:`lazy` is computed on first read.
    """

    mcmc: Any = None
    values: Mapping[str, Any] = field(default_factory=frozen_mapping)

    def __post_init__(self) -> None:
        if isinstance(self.values, (MappingProxyType, LazyValues)):
            return
        if any(isinstance(v, lazy) for v in self.values.values()):
            object.__setattr__(self, "values", LazyValues(self.values))       # computed when a page reads them
        else:
            object.__setattr__(self, "values", frozen_mapping(self.values))

    LABEL = "non-private diagnostics (computed from the data; not part of the release)"


@dataclass(frozen=True)
class Release:
    """What a private mechanism returns.

    Attributes
    ----------
    mechanism : str
        Registry name of the mechanism.
    value : Any
        The released output: usually an array of draws, shape (size, d); NaN-filled when
        ``released`` is False.
    cost : PrivacyCost
        The privacy cost of everything this call released (equals ``calibration.cost(size)``
        where ``size`` is the number of independent draws; charged even when withheld if the
        decision to withhold depended on the data).
    calibration : Calibration
        The public constants used.
    released : bool
        False when the mechanism withheld its output (e.g. MCMC chains that have not mixed);
        ``notes`` then hold a note of kind ``"withheld"`` saying which criterion failed.
    notes : tuple of Note
        Structured remarks (approximate privacy of MCMC, which sampler ran, ...).
    diagnostics : Diagnostics
        Non-private by-products, kept apart from the release.
    config : Any
        The frozen config that produced it (public parameters).
    """

    mechanism: str
    value: Any
    cost: PrivacyCost
    calibration: Calibration
    released: bool = True
    notes: tuple[Note, ...] = ()
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    config: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.cost, PrivacyCost):
            raise TypeError(f"cost must be a PrivacyCost; got {type(self.cost).__name__}.")
        if not isinstance(self.calibration, Calibration):
            raise TypeError(f"calibration must be a Calibration; got {type(self.calibration).__name__}.")
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def size(self) -> int:
        """Number of independent draws released (the cost's count)."""
        return self.cost.count

    def notes_of(self, kind: str) -> tuple[str, ...]:
        return tuple(n.text for n in self.notes if n.kind == kind)


@dataclass(frozen=True)
class MechanismSpec:
    """The declaration of one mechanism (registered by its topic's ``declare.py``).

    Attributes
    ----------
    name : str
        ``"topic/mechanism"``; unique across topics.
    title : str
        Plain-words name shown in the app (e.g. "KNG median").
    config : type
        The frozen config dataclass.
    release : callable
        ``release(data, config, *, rng) -> Release``.
    nonprivate : callable
        ``nonprivate(data, config) -> value`` comparable with ``Release.value`` rows.
    example : callable
        ``example() -> (data, config_kwargs)``: a small public dataset and parameters, used by the
        contract test (determinism, bad budgets, cost, inputs unchanged, huge budget).
    budget : tuple of str
        The config fields that are privacy budgets (``("epsilon",)``, ``("epsilon", "delta")``,
        ``("rho",)``); the contract test feeds them bad values.
    huge : Mapping
        Budget values under which the release must equal the non-private answer (within ``atol``).
    atol : float
        Absolute tolerance of that check.
    compare : callable, optional
        Maps a release's value to rows comparable with the non-private answer.
    private_fields : tuple of str
        Parts of a :class:`Release`, besides ``value``, that are part of the PRIVATE output (functions of
        the noised statistics) and may therefore differ between neighbouring datasets run with the same
        seed: ``"released"`` and ``"notes:<kind>"`` (e.g. ``"notes:withheld"`` for propose-test-release's
        ⊥, decided on noised statistics; ``"notes:output"`` for notes restating noised statistics).
        Everything else a page may show — every other note, every calibration field, the cost, the
        ``released`` flag — must be identical on neighbours (:func:`dpcore.testing.check_public_surface`).
    neighbours : callable, optional
        ``neighbours() -> [(D, D′), ...]``: datasets (same n, same public parameters as the example's) on
        which the public surface is compared; default: pairs derived from the example by moving its first
        record far out (so it is clipped) in each array (:func:`dpcore.testing.neighbour_pairs`).
    calibrate : callable
        ``calibrate(config, data_shape) -> Calibration``: the public constants of a release on data of
        shape ``data_shape`` (see :func:`data_shape`), computed WITHOUT the data — a page shows them (and
        the cost) before the click, and the contract test requires them to equal ``release(...).calibration``.
        The function is named ``calibrate`` and lives in the topic's ``calibration`` module (or a submodule of
        its ``calibration`` package): ``docs/architecture.md``, "Layout".
    shape : callable
        ``shape(data) -> tuple of int``: the public sizes of a dataset in this mechanism's input format;
        default :func:`data_shape`.
    noise : tuple of NoiseStep
        Every random step of the release with the example's config, and its sampler kind (what
        :func:`dpcore.registry.unhardened` lists; ``tests/test_hardening.py`` requires an exact sampler for
        every integer-valued step).
    """

    name: str
    title: str
    config: type
    release: Callable[..., Release]
    nonprivate: Callable[[Any, Any], Any]
    example: Callable[[], tuple[Any, dict]]
    budget: tuple[str, ...] = ("epsilon",)
    huge: Mapping[str, float] = field(default_factory=lambda: frozen_mapping({"epsilon": 1e9}))
    atol: float = 1e-3
    compare: Optional[Callable[[Any], np.ndarray]] = None
    private_fields: tuple[str, ...] = ()
    neighbours: Optional[Callable[[], Any]] = None
    calibrate: Optional[Callable[[Any, tuple[int, ...]], Calibration]] = None
    shape: Optional[Callable[[Any], tuple[int, ...]]] = None
    noise: tuple[NoiseStep, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "private_fields", tuple(self.private_fields))
        object.__setattr__(self, "noise", tuple(self.noise))
        for f in self.private_fields:
            kind = f.split(":", 1)[1] if f.startswith("notes:") else None
            if f != "released" and kind not in NOTE_KINDS:
                raise DPValueError(f"private field {f!r} of {self.name} is unknown; use 'released' or "
                                   f"'notes:<kind>' with a kind in {NOTE_KINDS}.")

    @property
    def topic(self) -> str:
        return self.name.split("/", 1)[0]

    def data_shape(self, data: Any) -> tuple[int, ...]:
        """The public sizes of ``data`` passed to :attr:`calibrate` (the spec's ``shape`` or :func:`data_shape`)."""
        return (self.shape or data_shape)(data)

    def make(self, **kwargs: Any) -> Any:
        """Build this mechanism's config from keyword arguments (see :func:`make_config`)."""
        return make_config(self.config, self.title, **kwargs)


def data_shape(data: Any) -> tuple[int, ...]:
    """Public sizes of a mechanism's input: ``(n, d)`` of its first array (``(n,)`` for a vector).

    A tuple ``(X, y)`` gives the shape of ``X``; an object with ``.shape`` its shape; a ``Dataset`` (an
    object with ``n`` and ``columns``) ``(n, number of columns)``. The number of records n is public under
    replace-one neighbours, and so is d.

    >>> import numpy as np
    >>> data_shape((np.zeros((5, 3)), np.zeros(5))), data_shape(np.zeros(7))
    ((5, 3), (7,))
    """
    if isinstance(data, tuple) and data:
        return data_shape(data[0])
    if hasattr(data, "shape"):
        return tuple(int(s) for s in data.shape)
    if hasattr(data, "n") and hasattr(data, "columns"):
        return (int(data.n), len(data.columns))
    return (len(data),)


def make_config(cls: type, what: str, **kwargs: Any) -> Any:
    """``cls(**kwargs)``, refusing a parameter ``cls`` does not have with a message naming it.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class MeanConfig:
    ...     epsilon: float
    >>> make_config(MeanConfig, "the mean", epsilon=1.0, radius=5)
    Traceback (most recent call last):
    ...
    dpcore.errors.DPValueError: parameter 'radius' does not apply to the mean; its parameters are: epsilon.
    """
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        word = "parameter" if len(unknown) == 1 else "parameters"
        listed = ", ".join(repr(u) for u in unknown)
        verb = "does" if len(unknown) == 1 else "do"
        raise DPValueError(f"{word} {listed} {verb} not apply to {what}; its parameters are: {', '.join(names)}.")
    return cls(**kwargs)
