"""The one build step that ``pyproject.toml`` cannot say: the claims ledger ships in the package.

The ledger is edited at ``notes/claims.toml`` (the path the documentation and the tests use); a
wheel gets it as ``dpquant/reference/claims.toml``, copied at build time, so the two cannot drift
(``notes/packaging.md``). An editable install reads it from ``notes/`` directly.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

LEDGER = Path("notes") / "claims.toml"
SHIPPED = Path("dpquant") / "reference" / "claims.toml"


class BuildPyWithLedger(build_py):
    """``build_py`` that also copies ``notes/claims.toml`` to ``dpquant/reference/claims.toml``."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            target = Path(self.build_lib) / SHIPPED
            self.mkpath(str(target.parent))
            self.copy_file(str(LEDGER), str(target))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        return [*outputs, str(Path(self.build_lib) / SHIPPED)]


setup(cmdclass={"build_py": BuildPyWithLedger})
