"""The real-code evaluation set (tests/realcode/): every case runs as a user would run pforge,
with no flags; no rewrite may change a result, and the loops rewritten today stay rewritten."""

from __future__ import annotations

import ast

import pytest

from tests.realcode.__main__ import case_files, judge

CASES = case_files()

#: cases whose loop is rewritten by default, the batched code running on the case's inputs;
#: a case leaving this list is a regression (add to it as pforge learns more)
REWRITTEN = {
    "cs231n_assignment2019/001_knn_two_loop_distances",
    "cs231n_assignment2019/002_knn_one_loop_distances",
    "cs231n_assignment2019/004_svm_loss_naive",
    "cs231n_assignment2019/005_svm_grad_naive",
    "cs231n_assignment2019/006_softmax_loss_naive",
    "cs231n_assignment2019/007_softmax_grad_naive",
    "from_python_to_numpy/006_life_apply_rules",  # (a board of lists: batched on a copy, written back)
    "from_python_to_numpy/014_smoke_radial_velocity",
    "from_python_to_numpy/016_double_sum_products",
    "gasyori100knock/001_otsu_threshold_search",  # (a uint8 image: a mean of ints is float64)
    "gasyori100knock/003_average_pooling",
    "gasyori100knock/004_max_pooling",
    "gasyori100knock/005_gaussian_kernel",
    "gasyori100knock/006_gaussian_filtering",
    "gasyori100knock/007_median_filter",
    "gasyori100knock/008_mean_filter",
    "gasyori100knock/009_motion_filter",
    "gasyori100knock/010_max_min_filter",
    "ml_from_scratch/004_adaboost_predict",  # (the stumps' attributes gathered into lists)
    "ml_from_scratch/006_majority_vote",  # (labels of shape (n, 1): counted over np.ravel(y))
    "ml_from_scratch/008_lda_predict",
    "ml_from_scratch/010_lda_between_scatter",
    "numpy_ml/001_linucb_arm_scores",
    "numpy_ml/004_gmm_lower_bound",
    "numpy_ml/005_gmm_predict",  # (the per-point comprehension over components: its own inner loop)
    "numpy_ml/006_gmm_e_step",
    "numpy_ml/007_gmm_m_step_means",
    "numpy_ml/008_gmm_m_step_covariances",
    "numpy_ml/010_viterbi_first_column",
    "pyroomacoustics/001_binning",
    "pyroomacoustics/002_cosine_band_edges",
    "pyroomacoustics/003_cosine_band_magnitudes",
    "pyroomacoustics/004_band_nonzero_bins",
    "pyroomacoustics/006_octave_bandwidths",
    "pyroomacoustics/011_mel_filterbank",
    "pyroomacoustics/012_inverse_sabine",
    "pyroomacoustics/014_square_grid_array",
    "pyroomacoustics/015_filters_from_weights_lstsq",
    "pyroomacoustics/016_weights_from_filters",
    "pyroomacoustics/017_point_response_grid",
    "pyroomacoustics/018_beam_response_map",
    "python_acoustics/005_clarity_per_band",
    "python_acoustics/007_third_to_octave",
    "python_acoustics/008_turbulence_field_modes",
    "scipy_cookbook/004_waveform_copy",
    "scipy_cookbook/009_class_marker_arrays",
    "thealgorithms_python/001_convert_to_negative",
    "thealgorithms_python/003_canny_non_max_suppression",
    "thealgorithms_python/004_canny_double_threshold",
    "thealgorithms_python/006_bilateral_spatial_kernel",
    "thealgorithms_python/007_bilateral_filter",
    "thealgorithms_python/008_im2col",
    "thealgorithms_python/009_gabor_kernel",
    "thealgorithms_python/010_gaussian_filter_windows",
    "thealgorithms_python/012_median_filter",
    "thealgorithms_python/014_histogram_stretch_apply",
    "thealgorithms_python/015_binary_dilation",
    "thealgorithms_python/016_binary_erosion",
    "thealgorithms_python/017_nearest_neighbour_resize",
    "thealgorithms_python/018_sepia",
}


#: cases marked dependent, for a running value, that pforge rewrites as a scan
SCANNED = {
    "thealgorithms_python/013_histogram_stretch_mapping",  # (`rem` stays 0: its `if` never runs)
}


#: cases marked dependent whose outer loop stays a loop while an independent loop or
#: comprehension inside it is rewritten
INNER = {
    "numpy_ml/011_viterbi_recursion",  # (the candidates of one state, a comprehension over states)
}


def test_the_set_is_real_code_from_enough_projects():
    assert len(CASES) >= 100
    assert len({p.parent.name for p in CASES}) >= 8
    for path in CASES:
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc.startswith("Source: https://github.com/"), path
        assert "\nProject: " in doc, path


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_no_rewrite_changes_a_result(path):
    result = judge(path)
    assert result.outcome not in ("wrong", "verdict"), result
    key = f"{result.project}/{result.name}"
    if key in REWRITTEN:
        assert result.outcome == "rewritten", result
    if key in SCANNED:
        assert result.outcome == "scan", result
    if key in INNER:
        assert result.outcome == "inner", result
