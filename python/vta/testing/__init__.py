"""What the tutorials import from vta.testing (`from vta.testing import simulator`)."""
