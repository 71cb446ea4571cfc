"""Home: what the explorer is, its topics, how to start, and how the privacy ledger works."""
import streamlit as st

from pages import _components as ui

st.title("DP Mechanism Explorer")
st.markdown(
    "Interactive experiments with differentially private (DP) mechanisms: run a mechanism on "
    "your data or on simulated data, see how its error depends on ε and n, and keep an honest "
    "account of the privacy you spend."
)
ui.educational_banner()

st.header("Topics")
st.caption("The first topic has its pages now; the others are on the roadmap and get their pages "
           "in later versions.")
st.markdown(
    """
- **K-norm gradient mechanism (KNG) vs exponential mechanism vs objective perturbation** —
  three ways to privatise an estimator defined by a loss (mean, median, quantiles, linear and
  quantile regression): KNG samples with density ∝ exp(−ε‖∇loss‖_K/(2Δ)), the exponential mechanism
  uses the loss itself, objective perturbation adds a random linear term before optimising.
  *Pages: KNG explorer, Error vs n.*
- **Sparse histograms and private density estimation** — Laplace histograms with thresholding for
  huge, mostly empty domains, and private kernel density estimates released through
  Gaussian-process (RKHS) noise or noisy Fourier coefficients.
- **Query release** — answering a whole workload of linear queries at once (projection,
  private multiplicative weights, local randomisers) with error that grows slowly in the number of
  queries.
- **Private LASSO** — Frank–Wolfe over the ℓ1 ball, where each step privately chooses a vertex
  with the exponential mechanism, giving error that depends on log d instead of d.
- **Certified eigenvalue bounds** — releasing the top eigenvalue of a covariance with a certified
  sensitivity bound (inverse-sensitivity / propose-test-release), so that the noise matches the
  data at hand.
"""
)

st.header("How to start")
st.markdown(
    "1. Open the **Data** page: upload a CSV or simulate a dataset, choose the numeric columns and "
    "declare their **public bounds** (a range fixed without looking at the data).\n"
    "2. Open a mechanism page, pick ε (and δ or ρ where relevant) and look at the release, its "
    "diagnostics and its cost.\n"
    "3. Use **Error vs n** to see how the error of each mechanism shrinks with the sample size."
)
st.page_link("pages/data.py", label="Go to the Data page", icon=":material/table_chart:")

st.header("The privacy ledger (sidebar)")
st.markdown(
    "Every private output spends privacy. The sidebar's ledger records each **new** release — a "
    "new dataset, mechanism, parameter or seed — with its guarantee, and adds them up two ways:\n\n"
    "- **basic composition**: the ε's and δ's add up;\n"
    "- **zCDP**: ρ's add up (an ε-DP release counts as ρ = ε²/2), then the total is converted to "
    "(ε, δ) at δ = 10⁻⁶, which is tighter when there are many releases. An (ε, δ)-DP release with "
    "δ > 0 has no zCDP bound, so this total is then unavailable.\n\n"
    "Streamlit reruns the page on every click; rerunning the *same* release (same data, parameters "
    "and seed) shows the stored result and is not counted again. Changing the seed to get another "
    "draw **is** a new release and is counted: looking at many draws and keeping the one you like "
    "spends privacy each time. With **fresh randomness** on, each new release draws its seed from "
    "the operating system and the sidebar shows it so the release can be reproduced. "
    "**Clear ledger** starts a new account; it cannot undo what was already revealed."
)
st.caption("Each session has its own data, releases and ledger; nothing is shared between "
           "browser sessions and nothing you upload is stored on disk by the app.")
