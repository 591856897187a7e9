"""Generated code-point tables of the references' normalizers (do not edit; scripts/generate_*.py make them)."""
