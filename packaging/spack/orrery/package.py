# Spack package for Orrery, kept in Orrery's repository (packaging/spack/).
# Use it from a local repository:
#   spack repo create ~/orrery-spack && cp -r packaging/spack/orrery ~/orrery-spack/packages/
#   spack repo add ~/orrery-spack && spack install orrery@main
# or `spack install orrery` after adding a release's url/sha256 below.

from spack.package import *


class Orrery(CMakePackage):
    """Measures MPI programs into OTF2 traces, replays them in parallel to find
    wait states (late senders, imbalance at collectives, ...) and writes an
    HDF5 cube of metric x call path x process, browsed in a web viewer or
    queried from the terminal and from Python."""

    # Orrery has no public home yet: point `git` at your clone (a path or URL),
    # e.g. `spack install orrery@main` after editing it, or use `spack dev-build`
    # in a checkout (see docs/install.md).
    homepage = "https://example.org/orrery"
    git = "file:///path/to/orrery"

    version("main", branch="main")

    variant("viewer", default=True,
            description="Build the viewer's browser front end with npm (embedded in `orrery`)")
    variant("python", default=True,
            description="Install the Python package (orrery.open(...) -> pandas DataFrames)")

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("python@3.8:", type=("build", "run"))  # MPI wrapper generator; the Python package
    depends_on("mpi")
    depends_on("otf2@3:")
    depends_on("hdf5~mpi")
    depends_on("cli11")
    depends_on("nlohmann-json")
    depends_on("cpp-httplib")
    depends_on("fmt")
    depends_on("elfutils")  # libdw: source lines of compiler-instrumented functions
    depends_on("zlib-api")
    depends_on("node-js", type="build", when="+viewer")
    depends_on("npm", type="build", when="+viewer")
    depends_on("py-numpy", type="run", when="+python")
    depends_on("py-h5py", type="run", when="+python")
    depends_on("py-pandas", type="run", when="+python")

    def cmake_args(self):
        return [
            self.define("ORRERY_BUILD_TESTS", self.run_tests),
            self.define("ORRERY_BUILD_BENCHMARKS", False),
            self.define_from_variant("ORRERY_BUILD_VIEWER_FRONTEND", "viewer"),
        ]

    def setup_run_environment(self, env):
        if self.spec.satisfies("+python"):
            python = self.spec["python"]
            site = join_path(self.prefix.lib, "python{0}".format(python.version.up_to(2)),
                             "site-packages")
            env.prepend_path("PYTHONPATH", site)
