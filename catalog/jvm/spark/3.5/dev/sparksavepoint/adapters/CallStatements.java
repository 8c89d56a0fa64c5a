package dev.sparksavepoint.adapters;

import java.util.Locale;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.Function2;
import scala.collection.Seq;

/**
 * SQL's {@code CALL} statement: Spark 3.5 has none (stored procedures came with 4.0), so its
 * parser would answer a syntax error; a session with the tool's extensions answers the tool's
 * refusal instead, naming the Spark it needs.
 */
public final class CallStatements {
  private static final Pattern CALL = Pattern.compile("^\\s*CALL\\s", Pattern.CASE_INSENSITIVE);

  private CallStatements() {}

  /** Makes the sessions' parser raise {@code refusal} for a CALL statement. */
  public static void install(
      SparkSessionExtensions extensions, Supplier<RuntimeException> refusal) {
    extensions.injectParser(
        (Function2<SparkSession, ParserInterface, ParserInterface>)
            (session, delegate) -> new Parser(delegate, refusal));
  }

  /** Spark's parser, but a CALL statement is refused. */
  private record Parser(ParserInterface delegate, Supplier<RuntimeException> refusal)
      implements ParserInterface {
    @Override
    public LogicalPlan parsePlan(String sql) throws ParseException {
      if (CALL.matcher(sql.toUpperCase(Locale.ROOT)).find()) throw refusal.get();
      return delegate.parsePlan(sql);
    }

    @Override
    public Expression parseExpression(String sql) throws ParseException {
      return delegate.parseExpression(sql);
    }

    @Override
    public TableIdentifier parseTableIdentifier(String sql) throws ParseException {
      return delegate.parseTableIdentifier(sql);
    }

    @Override
    public FunctionIdentifier parseFunctionIdentifier(String sql) throws ParseException {
      return delegate.parseFunctionIdentifier(sql);
    }

    @Override
    public Seq<String> parseMultipartIdentifier(String sql) throws ParseException {
      return delegate.parseMultipartIdentifier(sql);
    }

    @Override
    public LogicalPlan parseQuery(String sql) throws ParseException {
      return delegate.parseQuery(sql);
    }

    @Override
    public StructType parseTableSchema(String sql) throws ParseException {
      return delegate.parseTableSchema(sql);
    }

    @Override
    public DataType parseDataType(String sql) throws ParseException {
      return delegate.parseDataType(sql);
    }
  }
}
