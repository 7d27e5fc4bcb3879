"""pip install --no-build-isolation .   (docs/install.md)

Builds libtrnsim and the five family modules with CMake (tests, benchmarks
and the CLI's extras off) and installs the Python package with them inside
it: trnsim/_lib/libtrnsim.so.1 and trnsim/_lib/trnsim-*.so, the modules
beside the library, where libtrnsim looks for them. `pip uninstall trnsim`
removes every file. setuptools and wheel come from Debian
(python3-setuptools, python3-wheel); numpy from python3-numpy.
"""
import glob
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(HERE, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(trnsim VERSION ([0-9.]+)", f.read()).group(1)


class BuildWithCMake(build_py):
    """The package's .py files, then libtrnsim and its modules built by CMake
    into the package, and a _libpath.py naming the library beside them."""

    def run(self):
        super().run()
        build_temp = os.path.abspath(self.get_finalized_command("build").build_temp)
        cmake_dir = os.path.join(build_temp, "cmake")
        subprocess.check_call(["cmake", "-S", HERE, "-B", cmake_dir, "-DCMAKE_BUILD_TYPE=Release",
                               "-DTRNSIM_BUILD_TESTS=OFF", "-DTRNSIM_BUILD_BENCH=OFF"])
        subprocess.check_call(["cmake", "--build", cmake_dir, "-j%d" % (os.cpu_count() or 1)])
        lib_dir = os.path.join(self.build_lib, "trnsim", "_lib")
        os.makedirs(lib_dir, exist_ok=True)
        # the real file under its soname (a wheel holds no symlinks)
        shutil.copyfile(os.path.realpath(os.path.join(cmake_dir, "libtrnsim.so.1")),
                        os.path.join(lib_dir, "libtrnsim.so.1"))
        modules = glob.glob(os.path.join(cmake_dir, "trnsim-*.so"))
        if not modules:
            raise RuntimeError("the CMake build in %s made no modules (trnsim-*.so)" % cmake_dir)
        for so in modules:
            shutil.copyfile(so, os.path.join(lib_dir, os.path.basename(so)))
        libpath = os.path.join(self.build_lib, "trnsim", "_libpath.py")
        with open(libpath, "w", encoding="utf-8") as f:
            f.write("# written by setup.py: the library pip installed, relative to this package\n"
                    "LIBRARY = \"_lib/libtrnsim.so.1\"\n")


class BinaryDistribution(Distribution):
    """The wheel holds compiled code: tag it for this platform."""

    def has_ext_modules(self):
        return True


# setuptools' own build files go under build-pip/, not into the CMake build/
os.makedirs(os.path.join(HERE, "build-pip"), exist_ok=True)

setup(
    name="trnsim",
    version=version(),
    description="Bit-exact NeuronCore instruction simulator, in process from numpy",
    license="see the source tree",
    package_dir={"": "python"},
    packages=["trnsim", "trnsim.isa"],
    install_requires=["numpy"],
    python_requires=">=3.9",
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
    zip_safe=False,
)
