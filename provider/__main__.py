"""prescale's Pulumi plugin: serves :class:`prescale.plugin.Capacity` to programs in any language.

The Python language host runs this folder (``python <folder> <engine address>``); the SDK's experimental
component provider host infers the package schema from the component's annotations and serves it over gRPC,
printing its port. docs/library.md ("Other languages") says how a program adds it.
"""

from importlib.metadata import version

from prescale.plugin import Capacity
from pulumi.provider.experimental import component_provider_host

if __name__ == "__main__":
    component_provider_host([Capacity], name="prescale", version=version("prescale"))
