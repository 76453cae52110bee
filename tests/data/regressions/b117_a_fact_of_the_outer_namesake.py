import numpy as np

# helper-70 (session 41): `--shapes f.xs=2` (and the staged decorator's signature of `f`) gave
# its rank to the parameter `xs` of a function `f` nested inside `f`, which gets a 3-D array:
# `np.sum(xs, axis=-1)` then summed one axis of three where the loop sums each row whole. A
# fact keyed `f.x` names the outer function's parameter only (analysis.nodes.in_a_namesake).

SHAPES = {"f.xs": 2}
REWRITTEN = []


def f(xs):
    def f(xs):
        out = np.zeros(xs.shape[0])
        for i in range(xs.shape[0]):
            out[i] = np.sum(xs[i])
        return out
    return f(xs[:, :, None] * np.ones(2))


CALLS = [
    ("f", "np.arange(6.0).reshape(3, 2)"),
]
