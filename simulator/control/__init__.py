"""The control side (``ndbsim.control``): the HTTP API that stops and starts nodes and injects
and clears the model's faults."""
