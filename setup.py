"""Build the Cython core.

The import package ``bones`` lives in ``src/`` (``src/core`` is ``bones.core``).  Cython
resolves ``cimport bones.core.x`` by looking for ``bones/core/x.pxd`` on its include path,
so the build exposes ``src`` under the name ``bones`` in a private include folder.
"""

import glob
import os
import sys

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
    "traintensor",  # learning agents on the train games: tensor, mask, returns
    "trainvector",  # VectorEnv's core for the train games
]


def cython_include_dir() -> str:
    include = os.path.join(HERE, "build", "cython-include")
    os.makedirs(include, exist_ok=True)
    link = os.path.join(include, "bones")
    if not os.path.lexists(link):
        os.symlink(os.path.join(HERE, "src"), link)
    return include


def translated(name: str) -> bool:
    """Whether ``src/core/NAME.c`` is newer than the project's Cython sources (its .pyx and
    every .pxd).  Cython's own check also counts the .pxd files of the Cython installed
    in the build environment, which pip makes anew for every install: each `pip install .`
    of a checkout would translate and compile the whole core again (after a change to the
    compiler directives below, delete src/core/*.c)."""
    core = os.path.join(HERE, "src", "core")
    c = os.path.join(core, f"{name}.c")
    if not os.path.exists(c):
        return False
    sources = [os.path.join(core, f"{name}.pyx"), *glob.glob(os.path.join(core, "*.pxd"))]
    return os.path.getmtime(c) >= max(os.path.getmtime(source) for source in sources)


def extension(name: str, source: str) -> Extension:
    """A core module; it is compiled again when src/core/_portable.h changes.  MSVC gets
    setuptools' own optimisation flags (/Ox): -O3 is GCC's and Clang's."""
    flags = [] if sys.platform == "win32" else ["-O3"]
    headers = glob.glob(os.path.join("src", "core", "*.h"))
    return Extension(f"bones.core.{name}", [source], extra_compile_args=flags, depends=headers)


names = [n for n in CORE_MODULES if os.path.exists(os.path.join(HERE, "src", "core", f"{n}.pyx"))]
to_translate = [extension(n, f"src/core/{n}.pyx") for n in names if not translated(n)]

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
    ext_modules=[extension(n, f"src/core/{n}.c") for n in names if translated(n)]
    + cythonize(
        to_translate,
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
