"""The Spark-version compatibility matrix: one virtualenv per pyspark version, the golden
checkpoints each version writes (``tests/golden/<version>/``) and the driver that restarts them."""
