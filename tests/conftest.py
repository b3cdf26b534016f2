"""Makes the helpers shared across test folders (``tests/blind_table.py``) importable from
any of them: pytest puts this folder on ``sys.path`` for its conftest."""
