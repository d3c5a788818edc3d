"""pyfed.commands: the console off a terminal (one line per text, tables folded to the pipe width)."""



def test_text_off_a_terminal_is_one_line_and_tables_keep_the_width(capsys):
    from rich.table import Table

    from pyfed.commands import PIPE_WIDTH, make_console
    con = make_console()                       # pytest's stdout is not a terminal
    long = "word " * 60                        # 300 characters
    con.print(long.strip())
    t = Table("a", "b")
    t.add_row("x " * 100, "y")
    con.print(t)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == long.strip()              # not hard-wrapped
    assert all(len(line) <= PIPE_WIDTH for line in out[1:]) and len(out) > 5   # the table folds its cells
