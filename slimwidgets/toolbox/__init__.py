"""Tools built on the engine: sweeps (frontier, size path), cross-validation, binarizing,
risk tables, theory bounds, baselines, data reduction, the paper's model families and the
scikit-learn estimator. Modules that need scikit-learn load it only when imported.
"""
