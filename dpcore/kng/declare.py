"""KNG topic declaration: its mechanisms, audits and figures (read by :mod:`dpcore.registry`)."""
from dpcore.kng import figures
from dpcore.registry import Topic

TOPIC = Topic(
    name="kng",
    title="K-norm gradient mechanism",
    reference="Reimherr & Awan (2019), KNG: The K-Norm Gradient Mechanism, NeurIPS",
    mechanisms=(),
    audits=(),
    experiments=figures.EXPERIMENTS,
)
