"""Offline mocks that keep the call stack the SDK sends with each registration (``RegisterResourceRequest.stackTrace``,
recorded by ``pulumi.runtime.resource._get_stack_trace``): how deep it is, by resource."""

from prescale.offline import OfflineMocks


class StackTraces(OfflineMocks):
    """:class:`OfflineMocks` that record, by (type, name), how many frames each registration's stack trace holds."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: dict[tuple[str, str], int] = {}
        register = self.monitor.RegisterResource

        def recording(request):
            self.frames[request.type, request.name] = len(request.stackTrace.frames)
            return register(request)

        self.monitor.RegisterResource = recording
