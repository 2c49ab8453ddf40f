"""Simulation at scale (Ray), the deal log (Parquet), statistics (Polars) and tournaments."""
