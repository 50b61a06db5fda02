"""scikit-learn's own naive Bayes tests and estimator checks, run against nbcourse."""
