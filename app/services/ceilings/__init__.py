"""Physics: decode ceilings and rooflines of hardware x model."""
