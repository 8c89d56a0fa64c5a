package dev.sparksavepoint.adapters.state;

import scala.Option;

/** What a commit reports of the version it wrote: on 3.5, no state checkpoint id. */
public final class StateStoreCheckpointInfo {
  static final StateStoreCheckpointInfo NONE = new StateStoreCheckpointInfo();

  private StateStoreCheckpointInfo() {}

  /** The state checkpoint id of the version (checkpoint format v2): none on 3.5. */
  public Option<String> stateStoreCkptId() {
    return Option.empty();
  }
}
