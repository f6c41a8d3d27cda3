"""Models: the registry of named models (data only), where their files lie here (``locate``),
loading by name, hub id or folder (``loading``), and the ``calib models`` listing."""
