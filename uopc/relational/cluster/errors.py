"""What a cluster run says when it cannot run: one line, for the command line's exit 2 (3 for a cluster gone mid-run)."""


class ClusterError(ValueError):
  """A cluster that cannot be started or joined, a rule set or target the workers cannot load, an option that does not apply.

  >>> str(ClusterError("--cluster local:0: expected local:N"))
  '--cluster local:0: expected local:N'
  """


class ClusterGone(ClusterError):
  """The cluster a run started here ended under it (its head's processes killed from outside): what its workers held is
  lost, so the run ends with this line and the bound's exit code (3), not after Ray's own minute of retries.

  >>> ClusterGone("the Ray cluster ended").exit_code
  3
  """
  exit_code = 3
