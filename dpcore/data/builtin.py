"""Real datasets that ship inside scikit-learn (no download), with public bounds from domain knowledge.

One click on the Data page gives a class real data: ``builtin_dataset("diabetes")``. Every bound
below is stated from what the variable measures (units, physiology, chemistry, how the feature is
defined), written down before looking at the values — never from the data's min/max — and the
rationale travels with the dataset (its ``notes``). The datasets are public, so ``kind`` is
``"built-in"`` (:attr:`Dataset.is_demo`: releases may use fixed seeds for reproducible teaching).

References: Efron, Hastie, Johnstone & Tibshirani (2004), "Least angle regression", Ann. Statist.
32(2) (diabetes); Street, Wolberg & Mangasarian (1993), "Nuclear feature extraction for breast tumor
diagnosis", SPIE 1905 (Wisconsin diagnostic breast cancer); Forina et al., PARVUS (1988), via the UCI
repository (wine).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import pandas as pd

from ..errors import DataError
from ._format import fmt
from .dataset import Dataset

__all__ = ["BUILTIN_DATASETS", "BuiltinInfo", "PublicBound", "builtin_dataset"]


@dataclass(frozen=True)
class PublicBound:
    """A column's public bounds, its units and why they hold (from domain knowledge)."""

    column: str
    lower: float
    upper: float
    units: str
    rationale: str

    def note(self) -> str:
        return f"{self.column} in [{fmt(self.lower)}, {fmt(self.upper)}] {self.units}: {self.rationale}"


@dataclass(frozen=True)
class BuiltinInfo:
    """A built-in dataset: the scikit-learn loader, what it is, and the public bounds of its columns."""

    name: str
    label: str
    loader: str
    description: str
    reference: str
    bounds: tuple[PublicBound, ...]
    columns: tuple[str, ...] | None = None   # the columns kept (None: all)
    suggested: str = ""                     # what to try with it


_B = PublicBound

BUILTIN_DATASETS: Mapping[str, BuiltinInfo] = MappingProxyType({
    "diabetes": BuiltinInfo(
        "diabetes", "Diabetes (442 patients, scikit-learn)", "load_diabetes",
        "Baseline measurements of 442 diabetes patients and a measure of disease progression one year "
        "later (target), in raw clinical units (scikit-learn's load_diabetes(scaled=False)).",
        "Efron, Hastie, Johnstone & Tibshirani (2004), 'Least angle regression', Ann. Statist. 32(2).",
        (_B("age", 18, 80, "years", "an adult study population; 80 caps the age of the oldest participants."),
         _B("sex", 1, 2, "(code)", "coded 1 or 2 in the raw data."),
         _B("bmi", 10, 60, "kg/m²", "body-mass index: below 10 or above 60 is outside what adults survive "
            "or are seen with in clinics."),
         _B("bp", 40, 160, "mm Hg", "average (mean arterial) blood pressure: below 40 is circulatory "
            "collapse, above 160 a hypertensive emergency."),
         _B("s1", 50, 400, "mg/dL", "total serum cholesterol: clinically possible range."),
         _B("s2", 0, 300, "mg/dL", "LDL cholesterol: a part of total cholesterol, so at most its upper bound "
            "in practice."),
         _B("s3", 10, 120, "mg/dL", "HDL cholesterol: clinically possible range."),
         _B("s4", 1, 12, "(ratio)", "total cholesterol / HDL: at least 1 (HDL is part of the total); above 12 "
            "is not seen clinically."),
         _B("s5", 3, 7.6, "ln(mg/dL)", "log of serum triglycerides (natural log, per the dataset's "
            "documentation 'possibly log'): triglycerides of 20 to 2000 mg/dL."),
         _B("s6", 40, 300, "mg/dL", "blood glucose: below 40 is severe hypoglycaemia, 300 is severe "
            "hyperglycaemia."),
         _B("target", 0, 400, "(score)", "disease progression one year after baseline, a non-negative "
            "score; the study's scale stays below 400.")),
        suggested="KNG: linear or median regression of target on bmi; the mean of bmi."),
    "breast_cancer": BuiltinInfo(
        "breast_cancer", "Breast cancer (569 tumours, scikit-learn)", "load_breast_cancer",
        "Features of cell nuclei measured on digitised images of breast-mass fine-needle aspirates, and the "
        "diagnosis (target: 0 = malignant, 1 = benign). Five of the 30 features are kept: the ones whose "
        "range follows from how they are defined.",
        "Street, Wolberg & Mangasarian (1993), 'Nuclear feature extraction for breast tumor diagnosis', "
        "SPIE 1905 (Wisconsin diagnostic breast cancer data).",
        (_B("mean radius", 0, 40, "(image units)", "mean distance from a nucleus's centre to its boundary: "
            "non-negative; 40 is several times a normal nucleus, a generous cap."),
         _B("mean texture", 0, 128, "(grey levels)", "standard deviation of 8-bit grey levels (0 to 255): a "
            "standard deviation of values in [0, 255] cannot exceed 127.5."),
         _B("mean perimeter", 0, 300, "(image units)", "boundary length: about 2π × radius for a round "
            "nucleus (251 at radius 40), with room for irregular outlines."),
         _B("mean area", 0, 5000, "(square image units)", "about π × radius² for a round nucleus (5027 at "
            "radius 40)."),
         _B("mean fractal dimension", 0, 1, "(dimension − 1)", "'coastline approximation' minus 1: the "
            "fractal dimension of a plane curve lies between 1 and 2."),
         _B("target", 0, 1, "(code)", "diagnosis coded 0 (malignant) or 1 (benign).")),
        columns=("mean radius", "mean texture", "mean perimeter", "mean area", "mean fractal dimension", "target"),
        suggested="the mean or median of mean radius; the share of benign tumours (mean of target)."),
    "wine": BuiltinInfo(
        "wine", "Wine (178 wines, scikit-learn)", "load_wine",
        "Chemical analysis of 178 wines grown in one region of Italy from three cultivars (target: cultivar "
        "0, 1 or 2). Five of the 13 measurements are kept.",
        "Forina et al. (1988), PARVUS, via the UCI Machine Learning Repository (Wine data).",
        (_B("alcohol", 8, 16, "% vol", "table wines lie between about 8 and 16 % alcohol by volume (fermentation "
            "stops near 16 %; fortified wines are not in this study)."),
         _B("malic_acid", 0, 8, "g/L", "malic acid in grape must and wine ranges from 0 to about 7 g/L."),
         _B("magnesium", 50, 200, "mg/L", "magnesium in wines typically ranges from 50 to 200 mg/L."),
         _B("total_phenols", 0, 5, "g/L", "total phenolics in wine stay below about 4 to 5 g/L."),
         _B("proline", 0, 2500, "mg/L", "proline, the main amino acid of wine, ranges up to about 2500 mg/L."),
         _B("target", 0, 2, "(class)", "the cultivar, coded 0, 1 or 2.")),
        columns=("alcohol", "malic_acid", "magnesium", "total_phenols", "proline", "target"),
        suggested="the mean or a quantile of alcohol; regression of alcohol on proline."),
})


def builtin_dataset(name: str) -> Dataset:
    """The built-in dataset ``name`` (one of :data:`BUILTIN_DATASETS`: "diabetes", "breast_cancer",
    "wine"), read from the copy inside scikit-learn (offline), with its declared public bounds
    (source "declared"), the rationale of each bound in ``notes`` and ``kind="built-in"``.

    Every column is float64; rows are numbered from 1 (index name "row").
    """
    if name not in BUILTIN_DATASETS:
        raise DataError(f"built-in dataset {name!r} not known; choose one of "
                        f"{', '.join(map(repr, BUILTIN_DATASETS))}.")
    info = BUILTIN_DATASETS[name]
    from sklearn import (
        datasets as skd,  # local import: scikit-learn is only needed here
    )

    kwargs = {"scaled": False} if info.loader == "load_diabetes" else {}
    bunch = getattr(skd, info.loader)(as_frame=True, **kwargs)
    frame = bunch.frame
    if info.columns is not None:
        frame = frame[list(info.columns)]
    frame = frame.astype("float64")
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
    frame.columns = [str(c) for c in frame.columns]
    bounds = {b.column: (float(b.lower), float(b.upper)) for b in info.bounds}
    n = len(frame)
    unbounded = [c for c in frame.columns if c not in bounds]
    notes = [info.description, "Public bounds (domain knowledge, not the data):"]
    notes += [b.note() for b in info.bounds]
    if unbounded:
        notes.append(f"No public bounds stated for: {', '.join(unbounded)}.")
    if info.suggested:
        notes.append(f"To try: {info.suggested}")
    import sklearn
    prov = (f"built-in dataset {info.label}: sklearn.datasets.{info.loader}"
            f"({'scaled=False' if kwargs else ''}) from scikit-learn {sklearn.__version__}, n = {n}; "
            f"{info.reference} Public bounds declared from domain knowledge.")
    return Dataset(frame, tuple(frame.columns), bounds, prov, notes=tuple(notes), name=info.label,
                   kind="built-in")
