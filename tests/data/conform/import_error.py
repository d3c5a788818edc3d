"""An adapter module that fails while importing."""

raise RuntimeError("the module is broken")
