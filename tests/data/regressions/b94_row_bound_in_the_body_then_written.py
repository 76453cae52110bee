import numpy as np

# session 33, adversarial review (helper-54): a name bound in the body to a row of an array the
# loop writes later in the same iteration (`t = A[i]; A[i] = A[i] * 2; B[i] = t`) was copied
# where it was bound, as a number is; in the loop a row is a view, which sees the write. The
# batched value is now the view itself where it is one (basic subscripts), a number is still
# copied, and a row whose batched value would be a copy (`A[idx[i]]`) leaves the loop.


def row_stored_after_the_write(A, B):
    for i in range(A.shape[0]):
        t = A[i]
        A[i] = A[i] * 2
        B[i] = t
    return B


def row_summed_after_an_element_write(A, v):
    for i in range(A.shape[0]):
        t = A[i]
        A[i, 0] = 100.0
        v[i] = np.sum(t)
    return v


def reversed_row(A, B):
    for i in range(A.shape[0]):
        t = A[i][::-1]
        A[i] = A[i] + 1.0
        B[i] = t
    return B


def part_of_a_row(A, B):
    for i in range(A.shape[0]):
        t = A[i, 0:1]
        A[i] = A[i] * 3.0
        B[i] = t
    return B


def rows_collected(A):
    out = []
    for i in range(A.shape[0]):
        out.append(A[i])
        A[i] = A[i] * 2
    return np.array(out)


def element_read_before_the_write(A, B):
    for i in range(A.shape[0]):
        t = A[i, 0]
        A[i] = A[i] * 2
        B[i] = t
    return B


def row_at_a_data_index(A, idx, B):
    for i in range(A.shape[0]):
        t = A[idx[i]]
        A[i] = A[i] * 2
        B[i] = t
    return B


SHAPES = {"A": 2, "B": 2, "v": 1, "idx": 1}

CALLS = [('row_stored_after_the_write', 'np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros((2, 2))'),
         ('row_summed_after_an_element_write', 'np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros(2)'),
         ('reversed_row', 'np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros((2, 2))'),
         ('part_of_a_row', 'np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros((2, 1))'),
         ('rows_collected', 'np.array([[1.0, 2.0], [3.0, 4.0]])'),
         ('element_read_before_the_write', 'np.array([[1.0, 2.0], [3.0, 4.0]]), np.zeros((2, 2))'),
         ('row_at_a_data_index', 'np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0, 1]), np.zeros((2, 2))')]

REWRITTEN = ['row_stored_after_the_write', 'row_summed_after_an_element_write', 'reversed_row', 'part_of_a_row',
             'rows_collected', 'element_read_before_the_write']
