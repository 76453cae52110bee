"""Blocked access: each iteration reads and writes its own block ``x[b*y:b*(y + 1)]`` (pooling,
block averages). The dependence test proves the blocks disjoint (``dependence._block``), the
direct backend reads and writes them through windows, and look-alikes whose blocks overlap,
wrap around or are read by another iteration stay loops."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import transpile_source

POOLING = '''
def f(picture, block=4):
    pooled = picture.copy()
    h, w, ch = picture.shape
    n_h = int(h / block)
    n_w = int(w / block)
    for y in range(n_h):
        for x in range(n_w):
            for c in range(ch):
                pooled[block*y:block*(y+1), block*x:block*(x+1), c] = OP(pooled[block*y:block*(y+1), block*x:block*(x+1), c])
    return pooled
'''


def _both(source):
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py")
    return result, load_module("m.py", source=source).f, load_module("m.py", source=result.code).f


@pytest.mark.parametrize("op", ["np.max", "np.min", "lambda_mean"])
@pytest.mark.parametrize("shape, block", [((16, 12, 3), 4), ((17, 9, 2), 4), ((8, 8, 1), 3), ((5, 5, 3), 8),
                                          ((6, 6, 3), 1)])
def test_pooling_by_blocks_is_rewritten_and_equal(op, shape, block):
    """No annotations; the edge of an image a block does not fill is left as it was; a block
    larger than the image means no block at all."""
    spelled = "np.mean(X).astype(int)" if op == "lambda_mean" else f"{op}(X)"
    source = POOLING.replace("OP(pooled[block*y:block*(y+1), block*x:block*(x+1), c])",
                             spelled.replace("X", "pooled[block*y:block*(y+1), block*x:block*(x+1), c]"))
    result, loop, new = _both(source)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    rng = np.random.default_rng(sum(shape) + block)
    picture = rng.integers(0, 256, size=shape, dtype=np.uint8)
    want, got = loop(picture, block), new(picture, block)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_a_negative_block_runs_the_loop():
    """``b < 0`` makes ``x[0:b]`` a slice up to ``b`` from the end: no window, so the run-time
    check sends it to the loop, which the rewrite matches."""
    source = '''
def f(x, b, n):
    out = x.copy()
    for y in range(n):
        out[b*y:b*(y+1)] = np.sum(x[b*y:b*(y+1)])
    return out
'''
    result, loop, new = _both(source)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    x = np.arange(10.0)
    for b, n in ((-3, 3), (0, 2), (2, 5), (3, 3), (4, 3)):
        np.testing.assert_array_equal(new(x, b, n), loop(x, b, n))


CONSTANT_STRIDE = '''
def f(x):
    """Args:
      x: [n].
    """
    out = np.zeros(len(x))
    for i in range(len(x) // 2):
        out[2*i:2*i + 2] = x[2*i:2*i + 2] * i
    return out
'''


def test_a_constant_stride_block():
    result, loop, new = _both(CONSTANT_STRIDE)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    x = np.arange(9.0)
    np.testing.assert_array_equal(new(x), loop(x))


REFUSED = {
    "overlapping windows": '''
def f(x, b, n):
    for y in range(n):
        x[b*y:b*y + b + 1] = np.max(x[b*y:b*y + b + 1])
    return x
''',
    "a block shifted by a constant, which a negative stride wraps": '''
def f(x, b, n):
    for y in range(n):
        x[b*y + 1:b*(y+1) + 1] = np.max(x[b*y + 1:b*(y+1) + 1])
    return x
''',
    "a constant-stride block before the start, which wraps to the end": '''
def f(x, n):
    for i in range(n):
        x[2*i - 3:2*i - 1] = i * 1.0
    return x
''',
    "the next block read": '''
def f(x, b, n):
    for y in range(n):
        x[b*y:b*(y+1)] = x[b*(y+1):b*(y+2)] + 1.0
    return x
''',
    "a stride the loop changes": '''
def f(x, n):
    b = 1
    for y in range(n):
        x[b*y:b*(y+1)] = 0.0
        b = b + 1
    return x
''',
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_blocks_that_may_meet_are_left_as_loops(name):
    result, loop, new = _both(REFUSED[name])
    assert not result.plans[0].rewritten and not result.changed, result.code


COLUMN_BLOCKS = '''
def f(m, w):
    """Args:
      m: [r, n].
    """
    out = np.zeros((m.shape[0], m.shape[1]))
    for k in range(m.shape[1] // w):
        out[:, k*w:(k+1)*w] = m[:, k*w:(k+1)*w] - np.mean(m[:, k*w:(k+1)*w], axis=1, keepdims=True) * k
    return out
'''


@pytest.mark.parametrize("w", [1, 2, 3, 5])
def test_column_blocks_after_whole_axes(w):
    """``out[:, k*w:(k+1)*w]``: NumPy puts the loop's axis after the whole axes, so the value
    is moved there for the store, and the read moved back."""
    result, loop, new = _both(COLUMN_BLOCKS)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "np.moveaxis" in result.code
    m = np.random.default_rng(w).standard_normal((3, 11))
    np.testing.assert_array_equal(new(m, w), loop(m, w))


MORE_REFUSED = {
    "an invariant offset, which may be negative": '''
def f(x, k, n):
    for i in range(n):
        x[2*i + k:2*i + k + 2] = i * 1.0
    return x
''',
    "an offset that varies": '''
def f(x, idx, n):
    for i in range(n):
        m = idx[i]
        x[2*i + m:2*i + m + 2] = i * 1.0
    return x
''',
    "a bound that is no affine form": '''
def f(x, b, n):
    for y in range(n):
        x[b*y:int(b*(y+1))] = y * 1.0
    return x
''',
    "a start that may be negative": '''
def f(x, b, k, n):
    for y in range(k, n):
        x[b*y:b*(y+1)] = y * 1.0
    return x
''',
    "a stride that is a product of two names, one of them zero perhaps": '''
def f(x, b, c, n):
    for i in range(n):
        x[b*c*i:b*c*i + c] = i * 1.0
    return x
''',
    "the index as its own stride (only invariant strides are proven)": '''
def f(x, n):
    for i in range(n):
        x[i*i:i*i + i] = i * 1.0
    return x
''',
    "an open start": '''
def f(x, n):
    for i in range(n):
        x[:2*i + 2] = i * 1.0
    return x
''',
    "a stride the index multiplies twice": '''
def f(x, n):
    for i in range(n):
        x[i*i:i*i + 2] = i * 1.0
    return x
''',
}


@pytest.mark.parametrize("name", sorted(MORE_REFUSED))
def test_slices_that_are_no_blocks_are_not_independent(name):
    result, _, _ = _both(MORE_REFUSED[name])
    assert not result.plans[0].vectorizable, result.plans[0].remarks


@pytest.mark.parametrize("spelling", ["x[i:i + 1]", "x[3*i:3*i + 3]", "x[2*i + 1:2*i + 3]", "x[b*i:b*i + b]",
                                      "x[i*b:(i + 1)*b]"])
def test_blocks_of_every_spelling_are_independent(spelling):
    """Stride 1, 2 or 3, a constant offset, the stride a name on either side."""
    source = f'''
def f(x, b, n):
    for i in range(n):
        {spelling} = i * 1.0
    return x
'''
    result, loop, new = _both(source)
    assert result.plans[0].vectorizable, result.plans[0].remarks
    for b, n in ((2, 3), (3, 2), (1, 5)):
        np.testing.assert_array_equal(new(np.zeros(12), b, n), loop(np.zeros(12), b, n))


def test_a_block_read_other_than_block_by_block_says_so():
    """The dependence is the unknown kind (PF203), and the remark names the blocks."""
    source = '''
def f(x, b, n):
    for y in range(n):
        x[b*y:b*(y+1)] = x[b*(y+1):b*(y+2)] + 1.0
    return x
'''
    result, _, _ = _both(source)
    (level,) = result.plans[0].levels
    assert level.dependences == ("x: unknown dependence (another access reads the blocks that `y` writes "
                                 "otherwise than block by block) at line 5",)
    assert [r.code for r in level.blockers] == ["PF203"]


def test_a_whole_row_read_beside_blocks_of_it():
    """``m[0]`` reads every block of row 0 that ``m[0, 2*i:2*i + 2]`` writes: an access with
    fewer indices than the blocked axis is no block of its own."""
    source = '''
def f(m, n):
    for i in range(n):
        m[0, 2*i:2*i + 2] = np.sum(m[0]) + i
    return m
'''
    result, loop, _ = _both(source)
    assert not result.plans[0].vectorizable
    assert any("otherwise than block by block" in r.message for r in result.plans[0].remarks)
