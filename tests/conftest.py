import numpy as np
import pytest

from svmcompare.datasets import make_norm_pairs


@pytest.fixture
def norm_data():
    """Small simulated train and test sets (||x||_1^2, half equality)."""
    rng = np.random.RandomState(0)
    train = make_norm_pairs(120, "l1", random_state=rng)
    test = make_norm_pairs(300, "l1", random_state=rng)
    return train, test
