    wire [«s.bkw - 1»:0] bk_at = (aw_same || aw_ext) ? bk_tail - «s.bkw»'d1 : bk_tail;  // the open burst's
    always @(posedge clk) begin
        if (st_go) begin{% if s.keyed %}
            bk_key[bk_at] <= st_key;{% endif %}
            store_burst[st_idx] <= bk_at;
        end
    end
    // A store goes into the open burst, which is never the one a B retires.
    integer fe;
    always @(posedge clk) begin
        if (rst || start) in_flight <= «s.entries»'d0;
        else
            for (fe = 0; fe < «s.entries»; fe = fe + 1)
                if (st_go && st_idx == fe[«s.ib - 1»:0]) in_flight[fe] <= 1'b1;
                else if (b_beat && store_burst[fe] == bk_head) in_flight[fe] <= 1'b0;
    end
    always @(posedge clk) begin
        if (rst || start) begin
            bk_head <= «s.bkw»'d0;
            bk_tail <= «s.bkw»'d0;{% if s.keyed %}
            acked_any <= 1'b0;{% endif %}
        end else begin
            if (st_go && !aw_same && !aw_ext) bk_tail <= bk_tail + «s.bkw»'d1;
            if (b_beat) begin{% if s.keyed %}
                acked_key <= bk_key[bk_head];
                acked_any <= 1'b1;{% endif %}
                bk_head <= bk_head + «s.bkw»'d1;
            end
        end
    end
