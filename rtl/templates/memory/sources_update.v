    wire [«s.bkw - 1»:0] bk_at = (aw_same || aw_ext) ? bk_tail - «s.bkw»'d1 : bk_tail;  // the open burst's
    always @(posedge clk) begin
        if (st_go) begin{% if s.keyed %}
            bk_key[bk_at] <= st_key;{% endif %}
            bk_count[bk_at] <= st_count + 32'd1;
        end
    end
    always @(posedge clk) begin
        if (rst || start) begin
            bk_head <= «s.bkw»'d0;
            bk_tail <= «s.bkw»'d0;{% if s.keyed %}
            acked_any <= 1'b0;{% endif %}
            st_count <= 32'd0;
            acked_count <= 32'd0;
        end else begin
            if (st_go && !aw_same && !aw_ext) bk_tail <= bk_tail + «s.bkw»'d1;
            if (st_go) st_count <= st_count + 32'd1;
            if (b_beat) begin{% if s.keyed %}
                acked_key <= bk_key[bk_head];
                acked_any <= 1'b1;{% endif %}
                acked_count <= bk_count[bk_head];
                bk_head <= bk_head + «s.bkw»'d1;
            end
        end
    end
