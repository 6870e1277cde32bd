"""Build the Cython core.

The import package ``bones`` lives in ``src/`` (``src/core`` is ``bones.core``).  Cython
resolves ``cimport bones.core.x`` by looking for ``bones/core/x.pxd`` on its include path,
so the build exposes ``src`` under the name ``bones`` in a private include folder.
"""

import os

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
CORE_MODULES = [
    "tiles",
    "geometry",
    "rules",
    "state",
    "scorer",  # a variant's Python move_scorer, called from the core
    "moves",
    "seatview",
    "round",
    "playout",
    "search",
    "sampler",
    "policy",
    "belief",  # a model of the other players: pimc's infer option
    "ismcts",
    "referee",  # the round loop and the guard of a match's bots
    "actions",  # learning agents: docs/envs.md
    "tensor",
    "vector",
    "wideset",  # the double-N sets up to double-12 as 128-bit masks: the train games
    "trainstate",  # the train games' round state in C: docs/trains.md
    "trains",  # TrainRound: Mexican Train and Chicken Foot
    "trainsample",  # the train games' determinizer: docs/bots.md
    "trainplan",  # the train planner: a hand's best chain on one end
    "trainpolicy",  # the train games' playout policies and expert
    "trainsearch",  # montecarlo and pimc for the train games
    "trainismcts",  # ismcts for the train games
]


def cython_include_dir() -> str:
    include = os.path.join(HERE, "build", "cython-include")
    os.makedirs(include, exist_ok=True)
    link = os.path.join(include, "bones")
    if not os.path.lexists(link):
        os.symlink(os.path.join(HERE, "src"), link)
    return include


extensions = [
    Extension(f"bones.core.{name}", [f"src/core/{name}.pyx"], extra_compile_args=["-O3"])
    for name in CORE_MODULES
    if os.path.exists(os.path.join(HERE, "src", "core", f"{name}.pyx"))
]

setup(
    packages=[
        "bones",
        "bones.core",
        "bones.gamerules",
        "bones.plugins",
        "bones.match",
        "bones.protocol",
        "bones.envs",
        "bones.render",
    ],
    package_dir={"bones": "src"},
    package_data={"bones.core": ["*.pxd", "*.pyi", "*.h"], "bones": ["py.typed"]},
    ext_modules=cythonize(
        extensions,
        include_path=[cython_include_dir()],
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
    zip_safe=False,
)
