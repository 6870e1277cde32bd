from typing import Any

def random_playouts(
    variant: str, players: int, rounds: int, seed: int = 0, **options: Any
) -> dict[str, Any]: ...
