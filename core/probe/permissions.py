"""Permission facts: /dev/kfd and /dev/dri/renderD* access for this user, and their groups."""

from __future__ import annotations

from dataclasses import dataclass

from core.system import DeviceAccess, System, UserInfo

KFD = "/dev/kfd"
DRI = "/dev/dri"


@dataclass(frozen=True)
class PermissionFacts:
    user: UserInfo
    kfd: DeviceAccess
    render_nodes: tuple[DeviceAccess, ...]

    @property
    def in_render(self) -> bool:
        return "render" in self.user.groups

    @property
    def in_video(self) -> bool:
        return "video" in self.user.groups

    @property
    def is_root(self) -> bool:
        return self.user.uid == 0

    @property
    def open_to_everyone(self) -> bool:
        """Whether /dev/kfd and every render node exist with read and write for all (mode
        o+rw): then no group is needed. A node whose mode is unknown counts as closed."""
        if not self.kfd.exists:
            return False
        for node in (self.kfd, *self.render_nodes):
            if not node.exists:
                continue
            try:
                mode = int(node.mode or "", 8)
            except ValueError:
                return False
            if mode & 0o006 != 0o006:
                return False
        return True

    def blocked_nodes(self) -> list[DeviceAccess]:
        """Device nodes that exist but this user cannot open read-write."""
        nodes = [self.kfd, *self.render_nodes]
        return [n for n in nodes if n.exists and not (n.readable and n.writable)]

    def node_groups(self) -> list[str]:
        """The groups that own the GPU device nodes (usually render, on older systems video)."""
        groups = []
        for node in (self.kfd, *self.render_nodes):
            if node.exists and node.group and node.group not in groups and node.group != "root":
                groups.append(node.group)
        return groups

    def to_json(self) -> dict[str, object]:
        return {
            "uid": self.user.uid,
            "groups": list(self.user.groups),
            "devices": {n.path: n.to_json() for n in (self.kfd, *self.render_nodes)},
        }


def probe_permissions(system: System) -> PermissionFacts:
    renders = [p for p in system.device_nodes(DRI) if p.rsplit("/", 1)[-1].startswith("renderD")]
    return PermissionFacts(
        user=system.user(),
        kfd=system.device(KFD),
        render_nodes=tuple(system.device(p) for p in renders),
    )
