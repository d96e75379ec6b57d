// Runs the client checks through MySQL Connector/J with its default settings and prints one
// JSON line per check.
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

public class Run {
    interface Check {
        ResultSet run() throws SQLException;
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static void report(String check, int rows, SQLException err) {
        StringBuilder b = new StringBuilder("{\"check\":").append(quote(check));
        b.append(",\"ok\":").append(err == null).append(",\"rows\":").append(rows);
        if (err != null) {
            b.append(",\"code\":").append(err.getErrorCode());
            b.append(",\"error\":").append(quote(String.valueOf(err.getMessage())));
        }
        System.out.println(b.append('}'));
    }

    static void run(String check, Check c) {
        try (ResultSet rs = c.run()) {
            int n = 0;
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int i = 1; i <= columns; i++) rs.getObject(i);
                n++;
            }
            report(check, n, null);
        } catch (SQLException e) {
            report(check, 0, e);
        }
    }

    public static void main(String[] args) {
        String url = "jdbc:mysql://" + args[0] + ":" + args[1] + "/ndbinfo";
        Connection conn;
        try {
            conn = DriverManager.getConnection(url, args[2], args[3]);
            report("connect", 0, null);
        } catch (SQLException e) {
            report("connect", 0, e);
            return;
        }
        run("prepared", () -> {
            PreparedStatement ps =
                conn.prepareStatement("SELECT node_id, uptime, status FROM ndbinfo.nodes WHERE node_id >= ?");
            ps.setInt(1, 1);
            return ps.executeQuery();
        });
        run("nodes", () -> conn.createStatement().executeQuery("SELECT * FROM ndbinfo.nodes"));
        run("status", () -> conn.createStatement().executeQuery("SHOW GLOBAL STATUS LIKE 'Ndb%'"));
        run("engine_status", () -> conn.createStatement().executeQuery("SHOW ENGINE NDBCLUSTER STATUS"));
        run("get_columns", () -> {
            DatabaseMetaData meta = conn.getMetaData();
            return meta.getColumns("ndbinfo", null, "nodes", "%");
        });
        try {
            conn.close();
        } catch (SQLException e) {
            report("close", 0, e);
        }
    }
}
