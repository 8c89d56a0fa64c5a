package dev.sparksavepoint.sql;

import dev.sparksavepoint.commit.EditStatements;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;

/**
 * Notes the SQL text of each write statement the session analyzes ({@link EditStatements}), so
 * that the edit it makes records what it was. The parser keeps the text in the plan's origin
 * (a procedure's statements inherit the CALL's: the record names the CALL); the rule changes no
 * plan.
 */
public final class StatementText extends Rule<LogicalPlan> {
  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    // the writes a statement runs inside (an UPDATE's rewrite, a procedure's statements) carry
    // its text or none: the text is the statement the user ran
    if (EditStatements.WRITES.contains(plan.getClass().getSimpleName())
        && plan.origin().sqlText().isDefined()) {
      EditStatements.noted(plan.origin().sqlText().get());
    }
    return plan;
  }
}
