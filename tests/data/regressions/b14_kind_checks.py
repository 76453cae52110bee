import numpy as np


def best_word(words, scores):
    best = -1
    word = ""
    for w in words:
        s = scores[w]
        if s > best:
            best = s
            word = w
    return word, best


def class_means(resp, X):
    k = resp.shape[1]
    nums = [np.dot(resp[:, c], X) for c in range(k)]
    dens = [np.sum(resp[:, c]) for c in range(k)]
    means = np.zeros((k, X.shape[1]))
    for c in range(k):
        means[c] = nums[c] / dens[c]
    return means


def doubled_sums(xs):
    sq = [np.sum(x) for x in xs]
    out = np.zeros(len(sq))
    for i in range(len(sq)):
        out[i] = sq[i] * 2
    return out


def first_above(v):
    best = 100
    at = -1
    for t in range(len(v)):
        if v[t] > best:
            best = v[t]
            at = t
    return best, at


def count_above(X, W, y):
    cnt = 0
    for i in range(X.shape[0]):
        s = X[i].dot(W)
        for j in range(W.shape[1]):
            if s[j] > s[y[i]]:
                cnt += 1
    return cnt


CALLS = [("best_word", '["a", "b"], {"a": 1, "b": 2}'), ("best_word", "[], {}"),
         ("class_means", "np.ones((5, 0)), np.ones((5, 2))"), ("class_means", "np.ones((5, 2)), np.ones((5, 3))"),
         ("doubled_sums", "[[1, 2], [3]]"), ("doubled_sums", "[np.ones(2), np.ones(2)]"),
         ("first_above", "np.array([[1, 200], [300, 4], [5, 6]])"), ("first_above", "np.array([1, 200, 300, 4])"),
         ("count_above", "np.arange(12.0).reshape(4, 3), np.ones((3, 2)), np.array([0, 1, 0, 1])"),
         ("count_above", "np.arange(12.0).reshape(4, 3), np.ones((3, 2)), np.array([[0], [1], [0], [1]])")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('best_word', 'class_means', 'count_above', 'doubled_sums', 'first_above')
