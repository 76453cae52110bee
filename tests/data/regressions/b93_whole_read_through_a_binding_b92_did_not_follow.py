import numpy as np

# session 33, adversarial review of b92 (helper-53): the names the body reads whole were traced
# through one binding each, by names and views only, and an argument was compared at run time
# only where the loop read it by its own name. Now every binding that reaches the loop is
# followed (`if c: w = X`), the root of a written alias or view read whole is the written array
# (`w = X; w[i] = ... np.sum(X)`), a binding pforge cannot follow (a call's result, `+=`, a
# global, a closure's name) is compared with each written array at run time, and so is an
# argument read through another name (`w = y`) or bound again to a view of itself, and the items
# of a `*args` tuple.

G = None


def set_global(value):
    global G
    G = value
    return value


def untraced_call(X):
    w = np.add(X, 0.0, out=X)
    for i in range(X.shape[0]):
        X[i] = X[i] + np.sum(w)
    return X


def conditional_binding(X, c):
    if c:
        w = X
    else:
        w = np.zeros_like(X)
    for i in range(X.shape[0]):
        X[i] = X[i] + np.sum(w)
    return X


def augmented(X):
    w = X
    w += 0.0
    for i in range(X.shape[0]):
        X[i] = X[i] + np.sum(w)
    return X


def written_through_an_alias(X):
    w = X
    for i in range(X.shape[0]):
        w[i] = w[i] + np.sum(X)
    return X


def written_through_a_view(x):
    w = x[1:]
    for i in range(len(w)):
        w[i] = w[i] + np.sum(x)
    return x


def global_read(X):
    for i in range(X.shape[0]):
        X[i] = X[i] + np.sum(G)
    return X


def closure_read(X):
    def inner(Y):
        for i in range(Y.shape[0]):
            Y[i] = Y[i] + np.sum(X)
        return Y
    return inner(X)


def argument_by_another_name(x, y):
    w = y
    for i in range(1, len(x)):
        x[i] = w[i - 1] + 1.0
    return x


def argument_bound_again(x, y):
    y = np.asarray(y)
    for i in range(1, len(x)):
        x[i] = y[i - 1] + 1.0
    return x


def varargs(x, *ys):
    for i in range(len(x)):
        x[i] = x[i] + np.sum(ys[0])
    return x


def inner_loop_reads_what_the_outer_updates(X):
    # (helper-54: the bindings' lines, some None, were sorted: a TypeError in the analysis)
    w = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            X[i, j] += w
        w = np.sum(X[i])
    return X


def numbers_from_the_array(X, lr):
    n = X.shape[0]
    s = float(np.sum(X))
    for i in range(n):
        X[i] = X[i] * lr + s
    return X


SHAPES = {"X": 2, "Y": 2, "x": 1, "y": 1, "c": 0, "lr": 0, "value": 2}

CALLS = [('untraced_call', 'np.arange(1.0, 7.0).reshape(3, 2)'),
         ('conditional_binding', 'np.arange(1.0, 7.0).reshape(3, 2), True'),
         ('conditional_binding', 'np.arange(1.0, 7.0).reshape(3, 2), False'),
         ('augmented', 'np.arange(1.0, 7.0).reshape(3, 2)'),
         ('written_through_an_alias', 'np.arange(1.0, 7.0).reshape(3, 2)'),
         ('written_through_a_view', 'np.array([2.0, 3.0, 5.0, 7.0])'),
         ('global_read', 'set_global(np.arange(1.0, 7.0).reshape(3, 2))'),
         ('global_read', '(set_global(np.ones((3, 2))), np.arange(1.0, 7.0).reshape(3, 2))[1]'),
         ('closure_read', 'np.arange(1.0, 7.0).reshape(3, 2)'),
         ('argument_by_another_name', '*(lambda v: (v, v))(np.array([2.0, 3.0, 5.0, 7.0]))'),
         ('argument_by_another_name', 'np.zeros(4), np.array([2.0, 3.0, 5.0, 7.0])'),
         ('argument_bound_again', '*(lambda v: (v, v))(np.array([2.0, 3.0, 5.0, 7.0]))'),
         ('varargs', '*(lambda v: (v, v))(np.array([2.0, 3.0, 5.0, 7.0]))'),
         ('varargs', 'np.zeros(3), np.ones(3)'),
         ('inner_loop_reads_what_the_outer_updates', 'np.arange(1.0, 7.0).reshape(3, 2)'),
         ('numbers_from_the_array', 'np.arange(1.0, 7.0).reshape(3, 2), 0.5')]

REWRITTEN = ['untraced_call', 'augmented', 'global_read', 'closure_read.inner', 'argument_by_another_name',
             'argument_bound_again', 'varargs',
             'inner_loop_reads_what_the_outer_updates', 'numbers_from_the_array']
