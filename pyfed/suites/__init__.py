"""Built-in instances of ``pyfed check`` (data, no orchestration): :mod:`.scaffold` (the SCAFFOLD
instances of the default report) and :mod:`.fedavg` (the Field Guide FedAvg instances)."""
