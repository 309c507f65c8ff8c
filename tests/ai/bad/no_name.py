# Exits without printing anything.
