
C
xPlaceholder*
dtype0*$
shape:ÿÿÿÿÿÿÿÿÿ
>
bConst*
dtype0*%
valueB"§AÈ¿éWÊ>”æø?{LÈ¿
2
yBiasAddxb*
T0*
data_formatNHWC"ª