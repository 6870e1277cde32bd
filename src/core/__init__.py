"""The compiled core: tiles, rules, round state, move generation, scoring and playouts."""
